// The worker's access to Kafka for operations: snapshot, per-replica data
// measured on the hosts, the planners, and the approved run. Loaded on first
// use (dynamic imports), so the worker's cold start and the Slack ack path do
// not pay for kafkajs. Tests inject their own backend or use this one on the
// sandbox.
import type { ApprovalService } from '../approvals/service.ts';
import type { StepReport } from '../approvals/types.ts';
import type { ClusterConfig } from '../config/schema.ts';
import type { Executor } from '../hosts/types.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import type { RunApprovedResult } from '../operations/run-approved.ts';
import type { OperationHost } from '../operations/kafka-cli.ts';
import type { Plan, PlanResult } from '../operations/types.ts';
import { hostTargets, toConnectionConfig, type ExecutorFactory } from './diagnoser.ts';
import type { OpsRequest } from './ops-kinds.ts';

export interface RunHooks {
  onStep(step: StepReport): Promise<void>;
  onProgress(text: string): Promise<void>;
  /** Time the run may take before the worker must stop. */
  budgetMs?: number;
}

export interface OperationsBackend {
  /** Snapshot → (leader override: measure the replicas on their hosts) → planner. Changes nothing. */
  plan(cluster: ClusterConfig, request: OpsRequest): Promise<PlanResult>;
  /** Claim (exactly one worker wins) → fingerprint check → live steps, each audited before the next → finish. */
  run(cluster: ClusterConfig, approvals: ApprovalService<Plan>, requestId: string, workerId: string, hooks: RunHooks): Promise<RunApprovedResult>;
}

export class OperationsUnavailableError extends Error {
  override name = 'OperationsUnavailableError';
}

/** The topics a plan depends on: the same selection when planning and when re-checking the fingerprint. */
export function snapshotTopics(kind: string, params: Record<string, unknown>): string[] | null {
  return kind !== 'drain-broker' && typeof params.topic === 'string' ? [params.topic] : null;
}

export function createDefaultOperations(executorFor: ExecutorFactory): OperationsBackend {
  const snapshot = async (cluster: ClusterConfig, topics: string[] | null): Promise<ClusterSnapshot> => {
    const { takeSnapshot } = await import('../kafka/snapshot.ts');
    return takeSnapshot(toConnectionConfig(cluster), { topics, timeoutMs: Math.max(20_000, cluster.diagnosisTimeoutMs) });
  };
  const needs = async (cluster: ClusterConfig): Promise<{ executor: Executor; kafkaBin: string; bootstrap: string }> => {
    if (!cluster.operations) throw new OperationsUnavailableError(`operations are not configured for cluster ${cluster.name} (clusters[].operations.kafkaBin)`);
    const executor = await executorFor(cluster);
    if (!executor) throw new OperationsUnavailableError(`cluster ${cluster.name} has no host access (hosts.executor "none"): the Kafka tools cannot run`);
    return { executor, kafkaBin: cluster.operations.kafkaBin, bootstrap: (cluster.operations.bootstrap ?? cluster.bootstrap).join(',') };
  };

  return {
    async plan(cluster, request) {
      const ops = await import('../operations/planners.ts');
      const throttle = { throttleBytesPerSec: cluster.operations?.throttleBytesPerSec ?? 50 * 1024 * 1024 };
      switch (request.kind) {
        case 'drain-broker':
          return ops.planDrain(await snapshot(cluster, null), { broker: request.broker, partial: request.partial }, throttle);
        case 'raise-replication-factor':
          return ops.planRaiseReplicationFactor(await snapshot(cluster, [request.topic]), { topic: request.topic, replicationFactor: request.replicationFactor }, throttle);
        case 'leader-override': {
          const s = await snapshot(cluster, [request.topic]);
          const part = s.topics.find((t) => t.name === request.topic)?.partitions.find((p) => p.partition === request.partition);
          if (!part) return { ok: false, reason: `${request.topic}-${request.partition} does not exist on ${cluster.name}` };
          const { executor, kafkaBin } = await needs(cluster);
          const targets = hostTargets(cluster, part.replicas);
          // Log dirs as each host's own server.properties says (the host probe reads them, process up or down).
          const { probeHosts } = await import('../hosts/probe-runner.ts');
          const probes = await probeHosts(executor, targets, { timeoutMs: 30_000 });
          const logDirsOf = new Map(probes.filter((p) => p.ok).map((p) => [p.brokerId, p.ok ? p.report.logDirs.filter((d) => d.exists).map((d) => d.path) : []]));
          const { measureReplicas } = await import('../operations/replica-data.ts');
          const data = await measureReplicas(
            executor,
            targets.map((t) => ({ target: t, logDirs: logDirsOf.get(t.brokerId) ?? [], kafkaBin })),
            request.topic,
            request.partition,
          );
          return ops.planLeaderOverride(s, { topic: request.topic, partition: request.partition, ...(request.replica !== undefined ? { replica: request.replica } : {}) }, data);
        }
      }
    },

    async run(cluster, approvals, requestId, workerId, hooks) {
      const stored = await approvals.get(requestId);
      if (!stored) throw new OperationsUnavailableError(`no approval request ${requestId}`);
      const { executor, kafkaBin, bootstrap } = await needs(cluster);
      const topics = snapshotTopics(stored.plan.kind, stored.plan.params);
      // The tools run on a live broker's host, never on the broker being drained.
      const live = new Set((await snapshot(cluster, topics)).brokers.map((b) => b.id));
      const avoid = typeof stored.plan.params.broker === 'number' ? stored.plan.params.broker : -1;
      const target = hostTargets(cluster).find((t) => live.has(t.brokerId) && t.brokerId !== avoid) ?? hostTargets(cluster).find((t) => live.has(t.brokerId));
      if (!target) throw new OperationsUnavailableError(`no live broker of ${cluster.name} has host access to run the Kafka tools on`);
      const host: OperationHost = { executor, target, kafkaBin, bootstrap, timeoutMs: 120_000 };
      const { runApprovedPlan } = await import('../operations/run-approved.ts');
      return runApprovedPlan({
        approvals,
        requestId,
        workerId,
        deps: { readSnapshot: () => snapshot(cluster, topics), host, onStep: hooks.onStep, onProgress: hooks.onProgress },
        options: { pollIntervalMs: 2_000, reassignmentTimeoutMs: Math.max(60_000, (hooks.budgetMs ?? 14 * 60_000) - 60_000) },
      });
    },
  };
}
