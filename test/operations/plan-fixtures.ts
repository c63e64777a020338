// Snapshots and result helpers shared by the planner tests (pure: no cluster).
import type { ClusterSnapshot, PartitionState } from '../../lib/kafka/types.ts';
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
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r.plan;
}
export function reason<P extends Plan>(r: PlanResult<P>): string {
  if (r.ok) throw new Error(`expected a refusal, got ${r.plan.title}`);
  return r.reason;
}
