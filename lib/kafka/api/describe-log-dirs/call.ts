// DescribeLogDirs (API key 35, KIP-113), each broker asked about its own log dirs.
import { DescribeLogDirs as Definition, type DescribeLogDirsArgs, type DescribeLogDirsResult } from './codec.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import type { AdminApi } from '../../router/spec.ts';
import { byTopicPartition } from '../../router/results.ts';
import type { BrokerLogDirs, TopicPartition } from '../../admin/types.ts';

export interface DescribeLogDirsInput {
  brokerId: number;
  /** null: every replica on the broker. */
  partitions: TopicPartition[] | null;
}

export const DescribeLogDirs: AdminApi<DescribeLogDirsInput, DescribeLogDirsArgs, DescribeLogDirsResult, BrokerLogDirs> = {
  name: 'DescribeLogDirs',
  api: Definition,
  route: { to: 'broker', brokerId: (i) => i.brokerId },
  build: ({ partitions }) => ({ partitions }),
  toResults(res) {
    if (res.errorCode !== KafkaErrorCode.NONE) return { error: describeError(res.errorCode), logDirs: [] };
    return {
      error: null,
      logDirs: res.results.map((d) => ({
        path: d.logDir,
        errorCode: d.errorCode,
        error: describeError(d.errorCode),
        totalBytes: d.totalBytes >= 0 ? d.totalBytes : null,
        usableBytes: d.usableBytes >= 0 ? d.usableBytes : null,
        partitions: d.topics
          .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, sizeBytes: p.sizeBytes, offsetLag: p.offsetLag, isFuture: p.isFuture })))
          .sort(byTopicPartition),
      })),
    };
  },
  label: ({ brokerId }) => `DescribeLogDirs on broker ${brokerId}`,
};
