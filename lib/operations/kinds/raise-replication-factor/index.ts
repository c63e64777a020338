// raise-replication-factor: add replicas to every partition of a topic (e.g.
// 1 → 3), new replicas on the least-loaded live brokers, throttled. Existing
// replicas and leaders stay.

import type { ClusterSnapshot } from '../../../kafka/types.ts';
import { reassignmentCompensation } from '../../compensation.ts';
import type { Notice } from '../../failures.ts';
import { trailingCluster, type OperationKind } from '../../kind.ts';
import { listOf, namesText, type NameList } from '../../lists.ts';
import { assignmentOf, basePreconditions, finishPlan, formatRate, inProgress, invalidRequest, isLeaderless, liveIds, pickBroker, plural, reassignmentSteps, replicaLoad, throttleOf, type ReassignmentOptions } from '../../planners.ts';
import type { PlanResult } from '../../types.ts';
import { RaiseReplicationFactorRequest } from './request.ts';
import type { PartitionAssignment } from '../../validate.ts';
import { throttleSetting } from '../../throttle-setting.ts';

declare module '../../types.ts' {
  interface PlanParamsByKind {
    'raise-replication-factor': RaiseReplicationFactorParams;
  }
}


export interface RaiseReplicationFactorParams {
  topic: string;
  replicationFactor: number;
  throttleBytesPerSec: number;
}

function preconditions(params: RaiseReplicationFactorParams, s: ClusterSnapshot): Record<string, unknown> {
  const t = s.topics.find((x) => x.name === params.topic);
  return { ...basePreconditions('raise-replication-factor', s), topic: params.topic, partitions: t ? assignmentOf(s, t.partitions.map((p) => ({ topic: params.topic, partition: p.partition }))) : null };
}

/** Raise a topic's replication factor, new replicas on the least-loaded live brokers. */
export function planRaiseReplicationFactor(snapshot: ClusterSnapshot, request: unknown, options: ReassignmentOptions = {}): PlanResult {
  const parsed = RaiseReplicationFactorRequest.safeParse(request);
  if (!parsed.success) return { ok: false, refusal: invalidRequest(parsed.error) };
  const { topic, replicationFactor: n } = parsed.data;
  const throttle = throttleOf(options);
  if (typeof throttle !== 'number') return { ok: false, refusal: throttle };
  const t = snapshot.topics.find((x) => x.name === topic);
  if (!t) return { ok: false, refusal: { code: 'topic-not-found', topic } };
  const live = liveIds(snapshot);
  if (live.length < n) return { ok: false, refusal: { code: 'not-enough-brokers', replicationFactor: n, live: live.length } };
  const current = Math.max(...t.partitions.map((p) => p.replicas.length));
  if (t.partitions.every((p) => p.replicas.length >= n)) return { ok: false, refusal: { code: 'already-replicated', topic, current, wanted: n } };
  const busy = inProgress(snapshot, t.partitions.map((p) => ({ topic, partition: p.partition })));
  if (busy.length) return { ok: false, refusal: { code: 'reassignment-running', partitions: listOf(busy) } };

  const load = replicaLoad(snapshot);
  const moves: PartitionAssignment[] = [];
  const leaderless: string[] = [];
  let added = 0;
  for (const p of [...t.partitions].sort((a, b) => a.partition - b.partition)) {
    if (p.replicas.length >= n) continue;
    const replicas = [...p.replicas];
    while (replicas.length < n) replicas.push(pickBroker(load, live, replicas)!);
    added += replicas.length - p.replicas.length;
    moves.push({ topic, partition: p.partition, replicas });
    if (isLeaderless(p, new Set(live))) leaderless.push(`${topic}-${p.partition}`);
  }
  const params: RaiseReplicationFactorParams = { topic, replicationFactor: n, throttleBytesPerSec: throttle };
  return {
    ok: true,
    plan: finishPlan(snapshot, 'raise-replication-factor', params, preconditions(params, snapshot), {
      title: `raise ${topic}'s replication factor to ${n}`,
      steps: reassignmentSteps(moves, throttle, `${topic} to replication factor ${n}`),
      impact: {
        risk: 'low',
        partitionsAffected: moves.length,
        replicasToCopy: added,
      },
      warnings: leaderless.length ? [{ code: 'leaderless-cannot-copy', partitions: listOf(leaderless) }] : [],
    }),
  };
}

type RaiseNotice =
  | { code: 'not-enough-brokers'; replicationFactor: number; live: number }
  | { code: 'already-replicated'; topic: string; current: number; wanted: number }
  | { code: 'leaderless-cannot-copy'; partitions: NameList };

function noticeText(n: Notice): string | undefined {
  const d = n as RaiseNotice;
  switch (d.code) {
    case 'not-enough-brokers':
      return `replication factor ${d.replicationFactor} needs ${d.replicationFactor} live brokers; the cluster has ${d.live}`;
    case 'already-replicated':
      return `${d.topic} already has replication factor ${d.current} (≥ ${d.wanted}); lowering it is not this operation`;
    case 'leaderless-cannot-copy':
      return `${plural(d.partitions.total, 'partition')} ${d.partitions.total === 1 ? 'has' : 'have'} no leader and cannot be copied until then: ${namesText(d.partitions)}`;
    default:
      return undefined;
  }
}

export const raiseReplicationFactor: OperationKind<'raise-replication-factor'> = {
  kind: 'raise-replication-factor',
  summary: 'plan raising a topic’s replication factor',
  request: RaiseReplicationFactorRequest,
  commands: [
    {
      name: 'raise-rf',
      usage: 'raise-rf <topic> <n> [cluster]',
      parse(args, isCluster) {
        const { rest, cluster } = trailingCluster(args, isCluster);
        if (rest.length !== 2) return { error: 'give a topic and the new replication factor' };
        return { fields: { topic: rest[0], replicationFactor: rest[1] }, ...(cluster ? { cluster } : {}) };
      },
    },
  ],
  describeRequest: (r) => `raise the replication factor of ${r.topic} to ${r.replicationFactor}`,
  exclusive: true,
  topics: (params) => [params.topic],
  async plan(io, request) {
    const r = RaiseReplicationFactorRequest.parse(request);
    return planRaiseReplicationFactor(await io.snapshot([r.topic]), r, throttleSetting(io));
  },
  preconditions: (params, s) => preconditions(params, s),
  recheckOnResume: () => false,
  compensate: reassignmentCompensation,
  render: {
    headline: (plan) => [
      `Adds ${plural(plan.impact.replicasToCopy ?? 0, 'replica')} so each of ${plural(plan.impact.partitionsAffected, 'partition')} of ${plan.params.topic} has ${plan.params.replicationFactor} copies on different brokers.`,
      `Existing replicas and leaders stay; new replicas copy the data, throttled to ${formatRate(plan.params.throttleBytesPerSec)}.`,
      `Consider min.insync.replicas=${Math.min(2, plan.params.replicationFactor)} and acks=all afterwards.`,
    ],
    success: (plan) => `every partition of ${plan.params.topic} has ${plan.params.replicationFactor} replicas`,
    notice: noticeText,
  },
};
