// A scripted operations backend for tests that drive operations through the
// real Slack handler and worker: plans whatever it is asked (a full drain is
// refused) with a one-step plan, run by the real runner against a FakeCluster.
import type { ClusterConfig } from '../../lib/config/schema.ts';
import type { OperationsBackend } from '../../lib/operations/backend.ts';
import type { OpsRequest } from '../../lib/operations/requests.ts';
import { digestOf } from '../../lib/approvals/fingerprint.ts';
import { planRaiseReplicationFactor } from '../../lib/operations/kinds/raise-replication-factor/index.ts';
import { leaderOverride } from '../../lib/operations/kinds/leader-override/index.ts';
import { preconditionsFor } from '../../lib/operations/registry.ts';
import type { Plan, PlanResult, PlanTarget } from '../../lib/operations/types.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import { FakeCluster } from './fake-cluster.ts';

export async function fakePlan(request: OpsRequest, snapshot: ClusterSnapshot, cluster: FakeCluster): Promise<Plan> {
  if (request.kind === 'restart-brokers') throw new Error('restart plans are not faked here');
  const title = request.kind === 'leader-override' ? `make broker ${request.replica ?? 3} lead ${request.topic}-${request.partition}` : request.kind === 'drain-broker' ? `drain broker ${request.broker}` : `raise ${request.topic} to RF ${request.replicationFactor}`;
  const r = request as unknown as Record<string, never>;
  const target = (
    request.kind === 'leader-override'
      ? { kind: request.kind, params: { topic: r.topic, partition: r.partition, replica: r.replica ?? 3, requestedReplica: r.replica ?? null } }
      : request.kind === 'drain-broker'
        ? { kind: request.kind, params: { broker: r.broker, partial: r.partial, throttleBytesPerSec: 1_048_576 } }
        : { kind: request.kind, params: { topic: r.topic, replicationFactor: r.replicationFactor, throttleBytesPerSec: 1_048_576 } }
  ) as unknown as PlanTarget;
  // A leader override's fingerprint binds each replica's size: measured here as the runner will.
  const measured = target.kind === 'leader-override' ? await leaderOverride.measure!(cluster, target as never, { admin: await cluster.openAdmin(), snapshot: async () => snapshot }) : undefined;
  return {
    id: `plan-${Math.random().toString(36).slice(2, 10)}`,
    ...target,
    title,
    createdAt: new Date().toISOString(),
    // The runner re-checks this against the (scripted) live cluster right before running.
    fingerprint: digestOf(preconditionsFor(target, snapshot, measured)),
    preconditions: {},
    steps: [{ action: 'verify-leaders', description: 'leader must be 3', expected: [{ topic: 'orders', partition: 0, leader: 3 }] }],
    impact: {
      risk: 'high',
      partitionsAffected: 1,
      estimatedMessagesLost: 0,
      candidates: [
        { brokerId: 2, live: true, inIsr: false, logEndOffset: 1000, checkpointedHighWatermark: 1000, sizeBytes: 1, estimatedMessagesLost: 1000, defaultChoice: true },
        { brokerId: 3, live: true, inIsr: false, logEndOffset: 2000, checkpointedHighWatermark: 2000, sizeBytes: 2, estimatedMessagesLost: 0, defaultChoice: false },
      ],
    },
    warnings: [],
    dryRun: true,
  };
}

/**
 * Plans whatever it is asked (a full drain is refused) with a one-step plan
 * (verify that broker 3 leads orders-0), run by the real runner against a
 * scripted cluster where it does.
 */
export class ScriptedOperations implements OperationsBackend {
  planned: OpsRequest[] = [];
  /** The cluster names the runs reached (io(cluster)). */
  reached: string[] = [];
  readonly cluster = new FakeCluster().addTopic('orders', [[3, 2], [2, 3]]);
  async plan(_cluster: ClusterConfig, request: OpsRequest): Promise<PlanResult> {
    this.planned.push(request);
    if (request.kind === 'drain-broker' && !request.partial) {
      return { ok: false, refusal: { code: 'drain-needs-brokers', broker: 3, stuck: 1, movable: 0, example: { topic: 'orders', partition: 0, replicas: [1, 2, 3] }, others: [1, 2] } };
    }
    // A real reassignment plan where the test needs partitions that copy (and can be cancelled).
    if (request.kind === 'raise-replication-factor' && request.topic === 'slow') return planRaiseReplicationFactor(await this.cluster.snapshot(['slow']), request, { throttleBytesPerSec: 1_048_576 });
    return { ok: true, plan: await fakePlan(request, await this.cluster.snapshot(null), this.cluster) };
  }
  io(cluster: ClusterConfig) {
    this.reached.push(cluster.name);
    return this.cluster;
  }
}

