// OffsetFetch (API key 9), from the group's coordinator: committed offsets,
// our own codec (codec.ts; one group per request here, v8 on
// Kafka 3.0+, v1-v7 before; the snapshot batches groups in consumer-offsets.ts).
import { OffsetFetch as Definition, type OffsetFetchArgs, type OffsetFetchResult } from './codec.ts';
import { describeError, KafkaErrorCode, wholeCallError } from '../../errors.ts';
import { groupByTopic } from '../../partitions.ts';
import type { AdminApi } from '../../router/spec.ts';
import { byTopicPartition } from '../../router/results.ts';
import type { CommittedOffset, TopicPartition } from '../../admin/types.ts';

export interface OffsetFetchInput {
  groupId: string;
  /** Omitted: every partition the group committed. */
  partitions?: TopicPartition[];
}

const groupError = (res: OffsetFetchResult) => res.groups[0]?.errorCode ?? KafkaErrorCode.NONE;

export const OffsetFetch: AdminApi<OffsetFetchInput, OffsetFetchArgs, OffsetFetchResult, CommittedOffset[]> = {
  name: 'OffsetFetch',
  api: Definition,
  route: {
    to: 'coordinator',
    coordinator: (i) => ({ key: i.groupId, type: 'group' }),
    moved: (r) => groupError(r) === KafkaErrorCode.NOT_COORDINATOR || groupError(r) === KafkaErrorCode.COORDINATOR_NOT_AVAILABLE,
  },
  // A null topic list: every partition the group committed (v2+).
  build: ({ groupId, partitions }) => ({
    groups: [{ groupId, topics: partitions ? [...groupByTopic(partitions)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => p.partition) })) : null }],
  }),
  toResults(res, { groupId }) {
    if (res.groups.length !== 1) throw wholeCallError(`OffsetFetch for group ${groupId}`, KafkaErrorCode.UNKNOWN_SERVER_ERROR, `the coordinator answered for ${res.groups.length} groups`);
    const [g] = res.groups;
    if (g!.errorCode) throw wholeCallError(`OffsetFetch for group ${groupId}`, g!.errorCode);
    return g!.topics
      .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, offset: p.committedOffset, errorCode: p.errorCode, error: describeError(p.errorCode) })))
      .sort(byTopicPartition);
  },
  label: ({ groupId }) => `OffsetFetch ${groupId}`,
};
