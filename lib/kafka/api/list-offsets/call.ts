// ListOffsets (API key 2), from each partition's leader: earliest (-2) or
// latest (-1, the high watermark) offsets, or the last stable offset (READ_COMMITTED).
import { ListOffsets as Definition, type ListOffsetsArgs, type ListOffsetsResult } from './codec.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import { groupByTopic, tpKey, type TopicPartition } from '../../partitions.ts';
import type { FanOutApi } from '../../router/spec.ts';
import { missingResult } from '../../router/results.ts';
import type { PartitionOffset } from '../../admin/types.ts';

export interface OffsetQuery extends TopicPartition {
  /** -2 earliest, -1 latest. */
  timestamp: number;
  /** READ_COMMITTED: "latest" is then the last stable offset (LSO). One call asks one isolation level. */
  readCommitted?: boolean;
}

const { NONE, NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, UNKNOWN_LEADER_EPOCH, FENCED_LEADER_EPOCH, REQUEST_TIMED_OUT, NETWORK_EXCEPTION } = KafkaErrorCode;

/**
 * Each partition of an answer, its offset null with an error: the one reading
 * of ListOffsets' answer, for the admin (toResults) and the snapshot's samples
 * (no key or result object per partition: a fleet's sample is 400,000).
 */
export function eachOffset(res: ListOffsetsResult, fn: (topic: string, partition: number, offset: number | null, errorCode: number) => void): void {
  for (const t of res.topics) for (const p of t.partitions) fn(t.name, p.partition, p.errorCode === NONE ? p.offset : null, p.errorCode);
}

export const ListOffsets: FanOutApi<OffsetQuery, ListOffsetsArgs, ListOffsetsResult, PartitionOffset> = {
  name: 'ListOffsets',
  api: Definition,
  // A leader that moved between Metadata and ListOffsets: one more round with fresh Metadata.
  route: { to: 'leaders', retryOn: new Set([NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, UNKNOWN_LEADER_EPOCH, FENCED_LEADER_EPOCH, REQUEST_TIMED_OUT, NETWORK_EXCEPTION]) },
  key: (q) => tpKey(q.topic, q.partition),
  build: (batch) => ({
    replicaId: -1,
    // READ_UNCOMMITTED: the high watermark, as kafka-get-offsets.sh and Java's Admin report it;
    // READ_COMMITTED: the LSO, where read_committed consumers stop.
    isolationLevel: batch.some((q) => q.readCommitted) ? 1 : 0,
    topics: [...groupByTopic(batch)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => ({ partition: p.partition, timestamp: p.timestamp })) })),
  }),
  toResults(res) {
    const out = new Map<string, PartitionOffset>();
    eachOffset(res, (topic, partition, offset, errorCode) => out.set(tpKey(topic, partition), { topic, partition, offset, errorCode, error: describeError(errorCode) }));
    return out;
  },
  failed: ({ topic, partition }, errorCode, error) => ({ topic, partition, offset: null, errorCode, error }),
  missing: ({ topic, partition }) => ({ topic, partition, offset: null, ...missingResult('partition') }),
};
