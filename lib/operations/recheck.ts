// The run's re-check before step 1, once its reads are in: the plan must
// still fit the live cluster (its fingerprint), and no other reassignment may run.
import { digestOf } from '../approvals/fingerprint.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import { describeChange } from './describe-change.ts';
import type { Notice } from './failures.ts';
import type { OperationKind } from './kind.ts';
import { listOf } from './lists.ts';
import type { Plan, PlanKind, TopicPartition } from './types.ts';

/** The plan must still fit the cluster (and what the kind measures), and nobody else's reassignment may be running. */
export function preconditionRefusal(
  kind: OperationKind<PlanKind>,
  plan: Plan,
  snapshot: ClusterSnapshot,
  measured: unknown,
  running: readonly TopicPartition[],
): { status: 'STALE' | 'FAILED'; notice: Notice } | null {
  const current = kind.preconditions(plan.params as never, snapshot, measured);
  if (digestOf(current) !== plan.fingerprint) return { status: 'STALE', notice: { code: 'stale', change: describeChange(plan.preconditions, current) } };
  // Cruise Control's rule: never start a reassignment while another one runs.
  if (running.length > 0) return { status: 'FAILED', notice: { code: 'other-reassignment', partitions: listOf(running.map((r) => `${r.topic}-${r.partition}`)) } };
  return null;
}

