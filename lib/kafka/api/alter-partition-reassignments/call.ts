// AlterPartitionReassignments (API key 45, KIP-455), via the controller; a
// null replica list cancels the partition's pending reassignment.
import { AlterPartitionReassignments as Definition, type AlterPartitionReassignmentsArgs, type AlterPartitionReassignmentsResult } from './codec.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import { tpKey } from '../../partitions.ts';
import type { AdminApi } from '../../router/spec.ts';
import { missingResult, resultsInRequestOrder } from '../../router/results.ts';
import type { PartitionResult, ReassignmentTarget } from '../../admin/types.ts';

export interface AlterReassignmentsInput {
  targets: ReassignmentTarget[];
  /** The controller's own timeout. */
  timeoutMs: number;
}

export const AlterPartitionReassignments: AdminApi<AlterReassignmentsInput, AlterPartitionReassignmentsArgs, AlterPartitionReassignmentsResult, PartitionResult[]> = {
  name: 'AlterPartitionReassignments',
  api: Definition,
  route: { to: 'controller', notController: (r) => r.errorCode === KafkaErrorCode.NOT_CONTROLLER },
  build: ({ targets, timeoutMs }) => ({ targets, timeoutMs }),
  serverTimeoutMs: ({ timeoutMs }) => timeoutMs,
  toResults(res, { targets }) {
    const answered = new Map<string, PartitionResult>();
    for (const t of res.responses) {
      for (const p of t.partitions) answered.set(tpKey(t.name, p.partition), { topic: t.name, partition: p.partition, errorCode: p.errorCode, error: describeError(p.errorCode, p.errorMessage) });
    }
    // A top-level error (NOT_CONTROLLER, CLUSTER_AUTHORIZATION_FAILED...) applies to every partition, as in Java.
    if (res.errorCode !== KafkaErrorCode.NONE) {
      return targets.map(({ topic, partition }) => ({ topic, partition, errorCode: res.errorCode, error: describeError(res.errorCode, res.errorMessage) }));
    }
    return resultsInRequestOrder(targets, (t) => tpKey(t.topic, t.partition), answered, ({ topic, partition }) => ({ topic, partition, ...missingResult('partition') }));
  },
};
