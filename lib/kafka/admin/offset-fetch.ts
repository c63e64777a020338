// OffsetFetch (API key 9), from the group's coordinator: committed offsets.
import { KAFKAJS, type RawOffsetFetch } from '../wire.ts';
import { describeError, KafkaErrorCode, wholeCallError } from '../errors.ts';
import { groupByTopic } from '../partitions.ts';
import type { AdminApi } from './api.ts';
import { byTopicPartition } from './results.ts';
import type { CommittedOffset, TopicPartition } from './types.ts';

export interface OffsetFetchInput {
  groupId: string;
  /** Omitted: every partition the group committed. */
  partitions?: TopicPartition[];
}

type Args = { groupId: string; topics: { topic: string; partitions: { partition: number }[] }[] };

export const OffsetFetch: AdminApi<OffsetFetchInput, Args, RawOffsetFetch, CommittedOffset[]> = {
  name: 'OffsetFetch',
  api: KAFKAJS.OffsetFetch,
  route: {
    to: 'coordinator',
    coordinator: (i) => ({ key: i.groupId, type: 'group' }),
    moved: (r) => r.errorCode === KafkaErrorCode.NOT_COORDINATOR || r.errorCode === KafkaErrorCode.COORDINATOR_NOT_AVAILABLE,
  },
  // kafkajs writes no topics as the null array: every partition the group committed (v2+).
  build: ({ groupId, partitions }) => ({
    groupId,
    topics: partitions ? [...groupByTopic(partitions)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => ({ partition: p.partition })) })) : [],
  }),
  toResults(res, { groupId }) {
    if (res.errorCode) throw wholeCallError(`OffsetFetch for group ${groupId}`, res.errorCode);
    return res.responses
      .flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, partition: p.partition, offset: Number(p.offset), errorCode: p.errorCode, error: describeError(p.errorCode) })))
      .sort(byTopicPartition);
  },
  label: ({ groupId }) => `OffsetFetch ${groupId}`,
};
