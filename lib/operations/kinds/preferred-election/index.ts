// preferred-election: move leadership back to each partition's preferred
// (first) replica where it is live and in sync, e.g. after a restart left
// one broker leading nothing. No data moves, nothing is lost.
// `/kafka preferred-election [topic|topic:partition …] [cluster]`.

import type { ClusterSnapshot } from '../../../kafka/types.ts';
import { nothingOwed } from '../../compensation.ts';
import { trailingCluster, type OperationKind } from '../../kind.ts';
import { basePreconditions, byTp, findPartition, finishPlan, invalidRequest, liveIds, plural } from '../../planners.ts';
import { partitionLookup, tpName } from '../../../kafka/partitions.ts';
import type { PlanOf, PlanResult, TopicPartition } from '../../types.ts';
import { PreferredElectionRequest } from './request.ts';
import { andMore } from '../../../runtime/format.ts';

declare module '../../types.ts' {
  interface PlanParamsByKind {
    'preferred-election': PreferredElectionParams;
  }
}


export interface PreferredElectionParams {
  partitions: TopicPartition[];
}

function preconditions(params: PreferredElectionParams, s: ClusterSnapshot): Record<string, unknown> {
  const lookup = partitionLookup(s);
  return {
    ...basePreconditions('preferred-election', s),
    partitions: params.partitions
      .map((tp) => {
        const p = lookup(tp.topic, tp.partition);
        return { ...tp, replicas: p?.replicas ?? null, leader: p?.leader ?? null, isr: p ? [...p.isr].sort((a, b) => a - b) : null };
      })
      .sort(byTp),
  };
}

/** Move leadership back to each partition's preferred (first) replica where it is live and in sync. */
export function planPreferredElection(snapshot: ClusterSnapshot, request: unknown = {}): PlanResult<PlanOf<'preferred-election'>> {
  const parsed = PreferredElectionRequest.safeParse(request);
  if (!parsed.success) return { ok: false, refusal: invalidRequest(parsed.error) };
  for (const topic of parsed.data.topics ?? []) if (!snapshot.topics.some((t) => t.name === topic)) return { ok: false, refusal: { code: 'topic-not-found', topic } };
  for (const tp of parsed.data.partitions ?? []) {
    const found = findPartition(snapshot, tp.topic, tp.partition);
    if ('refusal' in found) return { ok: false, refusal: found.refusal };
  }
  const live = new Set(liveIds(snapshot));
  const topics = parsed.data.topics ? new Set(parsed.data.topics) : null;
  const wanted = parsed.data.partitions ? new Set(parsed.data.partitions.map(tpName)) : null;
  const targets: { topic: string; partition: number; leader: number }[] = [];
  for (const t of snapshot.topics) {
    for (const p of t.partitions) {
      const selected = (!topics && !wanted) || topics?.has(t.name) || wanted?.has(tpName({ topic: t.name, partition: p.partition }));
      if (!selected) continue;
      const preferred = p.replicas[0];
      if (preferred === undefined || p.leader === preferred) continue;
      if (!live.has(preferred) || !p.isr.includes(preferred)) continue;
      targets.push({ topic: t.name, partition: p.partition, leader: preferred });
    }
  }
  if (targets.length === 0) return { ok: false, refusal: { code: 'all-preferred' } };
  targets.sort(byTp);
  const tps = targets.map(({ topic, partition }) => ({ topic, partition }));
  const params: PreferredElectionParams = { partitions: tps };
  const n = plural(targets.length, 'partition');
  return {
    ok: true,
    plan: finishPlan(snapshot, 'preferred-election', params, preconditions(params, snapshot), {
      title: `preferred leader election for ${n}`,
      steps: [
        { action: 'elect-leaders', description: `preferred leader election for ${n}`, electionType: 'preferred', partitions: tps },
        { action: 'verify-leaders', description: 'verify each partition is led by its preferred replica', expected: targets },
      ],
      impact: { risk: 'low', partitionsAffected: targets.length },
      warnings: [],
    }),
  };
}

const PARTITION_WORD = /^([^:\s]+):(\d{1,7})$/;

export const preferredElection: OperationKind<'preferred-election'> = {
  kind: 'preferred-election',
  summary: 'plan moving leadership back to preferred replicas (e.g. after a restart)',
  request: PreferredElectionRequest,
  commands: [
    {
      name: 'preferred-election',
      usage: 'preferred-election [topic[:partition] …] [cluster]',
      parse(args, isCluster) {
        const { rest, cluster } = trailingCluster(args, isCluster);
        const topics: string[] = [];
        const partitions: { topic: string; partition: string }[] = [];
        for (const w of rest) {
          const m = PARTITION_WORD.exec(w);
          if (m) partitions.push({ topic: m[1]!, partition: m[2]! });
          else topics.push(w);
        }
        return { fields: { ...(topics.length ? { topics } : {}), ...(partitions.length ? { partitions } : {}) }, ...(cluster ? { cluster } : {}) };
      },
    },
  ],
  describeRequest: (r) => {
    const names = [...((r.topics as string[] | undefined) ?? []), ...((r.partitions as TopicPartition[] | undefined) ?? []).map(tpName)];
    return names.length ? `preferred leader election for ${andMore(names, 3)}` : 'preferred leader election wherever a preferred replica is not leading';
  },
  exclusive: false,
  topics: (params) => [...new Set(params.partitions.map((p) => p.topic))],
  async plan(io, request) {
    const r = PreferredElectionRequest.parse(request);
    const topics = [...new Set([...(r.topics ?? []), ...(r.partitions ?? []).map((p) => p.topic)])];
    return planPreferredElection(await io.snapshot(topics.length ? topics : null), r);
  },
  preconditions: (params, s) => preconditions(params, s),
  recheckOnResume: () => false,
  compensate: nothingOwed,
  render: {
    headline: (plan) => [
      `Moves leadership of ${plural(plan.params.partitions.length, 'partition')} back to their first replica, which is live and in sync.`,
      'No data moves and nothing is lost; clients follow the new leaders after a metadata refresh.',
    ],
    success: (plan) => `${plural(plan.params.partitions.length, 'partition')} led by their preferred replica`,
    notice: (n) => (n.code === 'all-preferred' ? 'every partition is led by its preferred replica, or that replica is not live and in sync' : undefined),
  },
};
