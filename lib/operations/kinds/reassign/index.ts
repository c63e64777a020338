// reassign: apply replica lists an operator gives, checked against the
// cluster, throttled. From Slack: `/kafka reassign orders:0=1,2,3 orders:1=2,3,1`
// (a colon cannot appear in a topic name, so the syntax is unambiguous; at most
// MAX_FROM_SLACK partitions per command: larger moves are drains or raise-rf).

import type { ClusterSnapshot } from '../../../kafka/types.ts';
import { reassignmentCompensation } from '../../compensation.ts';
import type { Notice } from '../../failures.ts';
import { trailingCluster, type OperationKind } from '../../kind.ts';
import { listOf } from '../../lists.ts';
import { assignmentOf, basePreconditions, byTp, findPartition, finishPlan, formatRate, inProgress, invalidRequest, liveIds, plural, reassignmentSteps, throttleOf, type ReassignmentOptions } from '../../planners.ts';
import { tpName } from '../../../kafka/partitions.ts';
import type { PlanResult, TopicPartition } from '../../types.ts';
import { ExplicitReassignmentRequest } from './request.ts';
import type { PartitionAssignment } from '../../validate.ts';
import { throttleSetting } from '../../throttle-setting.ts';

declare module '../../types.ts' {
  interface PlanParamsByKind {
    reassign: ReassignParams;
  }
}


export interface ReassignParams {
  partitions: TopicPartition[];
  assignment: PartitionAssignment[];
  throttleBytesPerSec: number;
}

const MAX_FROM_SLACK = 50;
const WORD = /^([^:=\s]+):(\d{1,7})=(\d{1,10}(?:,\d{1,10}){0,31})$/;

function preconditions(params: ReassignParams, s: ClusterSnapshot): Record<string, unknown> {
  return { ...basePreconditions('reassign', s), partitions: assignmentOf(s, params.partitions) };
}

/** Apply replica lists given by an operator, checked against the cluster. */
export function planExplicitReassignment(snapshot: ClusterSnapshot, request: unknown, options: ReassignmentOptions = {}): PlanResult {
  const parsed = ExplicitReassignmentRequest.safeParse(request);
  if (!parsed.success) return { ok: false, refusal: invalidRequest(parsed.error) };
  const throttle = throttleOf(options);
  if (typeof throttle !== 'number') return { ok: false, refusal: throttle };
  const live = new Set(liveIds(snapshot));
  const moves: PartitionAssignment[] = [];
  let copies = 0;
  for (const want of parsed.data.partitions) {
    const found = findPartition(snapshot, want.topic, want.partition);
    if ('refusal' in found) return { ok: false, refusal: found.refusal };
    const notLive = want.replicas.filter((r) => !live.has(r));
    if (notLive.length) return { ok: false, refusal: { code: 'target-not-live', partition: tpName(want), brokers: notLive } };
    if (want.replicas.join(',') === found.p.replicas.join(',')) continue;
    copies += want.replicas.filter((r) => !found.p.replicas.includes(r)).length;
    moves.push({ topic: want.topic, partition: want.partition, replicas: want.replicas });
  }
  if (moves.length === 0) return { ok: false, refusal: { code: 'nothing-to-change' } };
  moves.sort(byTp);
  const busy = inProgress(snapshot, moves);
  if (busy.length) return { ok: false, refusal: { code: 'reassignment-running', partitions: listOf(busy) } };
  const params: ReassignParams = { partitions: moves.map(({ topic, partition }) => ({ topic, partition })), assignment: moves, throttleBytesPerSec: throttle };
  return {
    ok: true,
    plan: finishPlan(snapshot, 'reassign', params, preconditions(params, snapshot), {
      title: `reassign ${plural(moves.length, 'partition')}`,
      steps: reassignmentSteps(moves, throttle, 'explicit assignment'),
      impact: {
        risk: 'medium',
        partitionsAffected: moves.length,
        replicasToCopy: copies,
      },
      warnings: [],
    }),
  };
}

function noticeText(n: Notice): string | undefined {
  switch (n.code) {
    case 'target-not-live':
      return `${n.partition}: broker ${(n.brokers as number[]).join(', ')} is not live (a reassignment accepts only live brokers)`;
    case 'nothing-to-change':
      return 'every partition already has the requested replica list: nothing to change';
    default:
      return undefined;
  }
}

export const reassign: OperationKind<'reassign'> = {
  kind: 'reassign',
  summary: 'plan moving partitions to the replica lists you give (topic:partition=brokers)',
  request: ExplicitReassignmentRequest,
  commands: [
    {
      name: 'reassign',
      usage: 'reassign <topic>:<partition>=<broker,broker,…> […] [cluster]',
      parse(args, isCluster) {
        const { rest, cluster } = trailingCluster(args, isCluster);
        if (rest.length === 0) return { error: 'give at least one topic:partition=brokers, e.g. orders:0=1,2,3' };
        if (rest.length > MAX_FROM_SLACK) return { error: `at most ${MAX_FROM_SLACK} partitions per command; larger moves are drains or raise-rf` };
        const partitions = [];
        for (const w of rest) {
          const m = WORD.exec(w);
          if (!m) return { error: `\`${w}\` is not topic:partition=brokers (e.g. orders:0=1,2,3)` };
          partitions.push({ topic: m[1], partition: m[2], replicas: m[3]!.split(',') });
        }
        return { fields: { partitions }, ...(cluster ? { cluster } : {}) };
      },
    },
  ],
  describeRequest: (r) => {
    const ps = (r.partitions as { topic: string; partition: number; replicas: number[] }[]) ?? [];
    return ps.length === 1 ? `reassign ${ps[0]!.topic}-${ps[0]!.partition} to ${ps[0]!.replicas.join(',')}` : `reassign ${plural(ps.length, 'partition')}`;
  },
  exclusive: true,
  topics: (params) => [...new Set(params.partitions.map((p) => p.topic))],
  async plan(io, request) {
    const r = ExplicitReassignmentRequest.parse(request);
    return planExplicitReassignment(await io.snapshot([...new Set(r.partitions.map((p) => p.topic))]), r, throttleSetting(io));
  },
  preconditions: (params, s) => preconditions(params, s),
  recheckOnResume: () => false,
  compensate: reassignmentCompensation,
  render: {
    headline: (plan) => [
      `Applies the given replica lists to ${plural(plan.params.partitions.length, 'partition')}; ${plural(plan.impact.replicasToCopy ?? 0, 'new replica')} copy data, throttled to ${formatRate(plan.params.throttleBytesPerSec)}.`,
      'Leaders stay where they are until a preferred election (`/kafka preferred-election`) moves them to the first replica of each list.',
    ],
    success: (plan) => `${plural(plan.params.partitions.length, 'partition')} have the requested replica lists`,
    notice: noticeText,
  },
};
