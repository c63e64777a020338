// Snapshots and result helpers shared by the planner tests (pure: no cluster).
import type { ClusterSnapshot, PartitionState } from '../../lib/kafka/types.ts';
import type { Notice } from '../../lib/operations/failures.ts';
import { noticeText } from '../../lib/operations/render-text.ts';
import type { Plan, PlanResult } from '../../lib/operations/types.ts';

export type P = [leader: number, replicas: number[], isr: number[]];

export function snapshot(brokers: number[], topics: Record<string, P[]>, extra: Partial<Record<string, Partial<PartitionState>>> = {}): ClusterSnapshot {
  return {
    takenAt: '2026-01-01T00:00:00.000Z',
    clusterId: 'c1',
    controllerId: 100,
    brokers: brokers.map((id) => ({ id, host: '127.0.0.1', port: 9090 + id })),
    topics: Object.entries(topics).map(([name, parts]) => ({
      name,
      internal: name.startsWith('__'),
      config: null,
      partitions: parts.map(([leader, replicas, isr], partition) => ({
        partition,
        leader,
        replicas,
        isr,
        offlineReplicas: replicas.filter((r) => !brokers.includes(r)),
        ...extra[`${name}-${partition}`],
      })),
    })),
    groups: [],
    offsetsTopicPartitions: 50,
    unreachableBrokers: [],
    errors: [],
    partial: false,
  };
}

export function plan<P extends Plan>(r: PlanResult<P>): P {
  if (!r.ok) throw new Error(`refused: ${noticeText(r.refusal)}`);
  return r.plan;
}
/** The refusal's code and fields (what tests assert). */
export function refusal<P extends Plan>(r: PlanResult<P>): Notice {
  if (r.ok) throw new Error(`expected a refusal, got ${r.plan.title}`);
  return r.refusal;
}
/** The refusal as the requester reads it (a few tests pin the words). */
export function reason<P extends Plan>(r: PlanResult<P>): string {
  return noticeText(refusal(r));
}
/** The plan's warning codes. */
export const codes = (p: Plan) => p.warnings.map((w) => w.code);
/** The plan's warnings as approvers read them. */
export const warningLines = (p: Plan) => p.warnings.map((w) => noticeText(w, p.kind));
