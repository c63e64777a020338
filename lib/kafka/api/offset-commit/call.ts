// OffsetCommit (API key 8) as an admin, on the group's coordinator: generation
// -1 and no member id, as kafka-consumer-groups.sh --reset-offsets sends, so
// Kafka accepts it only while the group has no active members.
import { OffsetCommitWire, type RawOffsetCommit } from './codec.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import { groupByTopic, tpKey } from '../../partitions.ts';
import type { AdminApi } from '../../router/spec.ts';
import { missingResult, resultsInRequestOrder } from '../../router/results.ts';
import type { PartitionResult, TopicPartition } from '../../admin/types.ts';

export interface OffsetCommitInput {
  groupId: string;
  offsets: (TopicPartition & { offset: number })[];
}

type Args = { groupId: string; groupGenerationId: number; memberId: string; retentionTime: number; topics: { topic: string; partitions: { partition: number; offset: string }[] }[] };

const moved = (code: number) => code === KafkaErrorCode.NOT_COORDINATOR || code === KafkaErrorCode.COORDINATOR_NOT_AVAILABLE;

export const OffsetCommit: AdminApi<OffsetCommitInput, Args, RawOffsetCommit, PartitionResult[]> = {
  name: 'OffsetCommit',
  api: OffsetCommitWire,
  route: {
    to: 'coordinator',
    coordinator: (i) => ({ key: i.groupId, type: 'group' }),
    moved: (r) => r.responses.length > 0 && r.responses.every((t) => t.partitions.every((p) => moved(p.errorCode))),
  },
  build: ({ groupId, offsets }) => ({
    groupId,
    groupGenerationId: -1,
    memberId: '',
    retentionTime: -1,
    topics: [...groupByTopic(offsets)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => ({ partition: p.partition, offset: String(p.offset) })) })),
  }),
  toResults(res, { offsets }) {
    const answered = new Map<string, PartitionResult>();
    for (const t of res.responses) {
      for (const p of t.partitions) answered.set(tpKey(t.topic, p.partition), { topic: t.topic, partition: p.partition, errorCode: p.errorCode, error: describeError(p.errorCode) });
    }
    return resultsInRequestOrder(offsets, (o) => tpKey(o.topic, o.partition), answered, ({ topic, partition }) => ({ topic, partition, ...missingResult('partition') }));
  },
  label: ({ groupId }) => `OffsetCommit ${groupId}`,
};
