// ElectLeaders (API key 43, KIP-460), via the controller. ELECTION_NOT_NEEDED
// per partition: it already has the leader the election would give it.
import { ElectLeaders as Definition, type ElectLeadersArgs, type ElectLeadersResult } from './codec.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import { tpKey } from '../../partitions.ts';
import type { AdminApi } from '../../router/spec.ts';
import { missingResult, resultsInRequestOrder } from '../../router/results.ts';
import type { ElectionType, PartitionResult, TopicPartition } from '../../admin/types.ts';

export interface ElectLeadersInput {
  type: ElectionType;
  partitions: TopicPartition[];
  /** The controller's own timeout. */
  timeoutMs: number;
}

const { NONE, NOT_CONTROLLER } = KafkaErrorCode;

export const ElectLeaders: AdminApi<ElectLeadersInput, ElectLeadersArgs, ElectLeadersResult, PartitionResult[]> = {
  name: 'ElectLeaders',
  api: Definition,
  route: {
    to: 'controller',
    // ZooKeeper-mode controllers that lost the role answer NOT_CONTROLLER per partition.
    notController: (r) => r.errorCode === NOT_CONTROLLER || (r.results.length > 0 && r.results.every((t) => t.partitions.every((p) => p.errorCode === NOT_CONTROLLER))),
  },
  build: ({ type, partitions, timeoutMs }) => ({ electionType: type, partitions, timeoutMs }),
  serverTimeoutMs: ({ timeoutMs }) => timeoutMs,
  toResults(res, { partitions }) {
    if (res.errorCode !== NONE) return partitions.map(({ topic, partition }) => ({ topic, partition, errorCode: res.errorCode, error: describeError(res.errorCode) }));
    const answered = new Map<string, PartitionResult>();
    for (const t of res.results) {
      for (const p of t.partitions) answered.set(tpKey(t.topic, p.partition), { topic: t.topic, partition: p.partition, errorCode: p.errorCode, error: describeError(p.errorCode, p.errorMessage) });
    }
    return resultsInRequestOrder(partitions, (p) => tpKey(p.topic, p.partition), answered, ({ topic, partition }) => ({ topic, partition, ...missingResult('partition') }));
  },
};
