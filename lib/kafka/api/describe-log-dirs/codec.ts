// DescribeLogDirs (API key 35, KIP-113), from Kafka's DescribeLogDirsRequest.json /
// Response.json. Kafka 4.0 removed v0 (KIP-896): 4.x accepts 1-4, 2.8-3.0 accept
// 0-2, 3.1+ 0-3 and 3.3+ 0-4. We implement v1-v4, so every broker from 2.8 to 4.1
// has one in common with us:
//   v1 = v0 (only the throttling behaviour changed), v2 = flexible encoding,
//   v3 adds a top-level ErrorCode, v4 adds TotalBytes / UsableBytes per log dir.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';
import { byTopic } from '../../partitions.ts';

export const DESCRIBE_LOG_DIRS_API_KEY = 35;

export interface DescribeLogDirsArgs {
  /** null asks for every replica on the broker. */
  partitions: readonly { topic: string; partition: number }[] | null;
}

export interface DescribeLogDirsResult {
  throttleTimeMs: number;
  /** v3+; 0 on older versions. */
  errorCode: number;
  results: {
    errorCode: number;
    logDir: string;
    topics: { name: string; partitions: { partition: number; sizeBytes: number; offsetLag: number; isFuture: boolean }[] }[];
    /** v4+; -1 when unknown or on older versions. */
    totalBytes: number;
    usableBytes: number;
  }[];
}

export const DescribeLogDirs: ApiDefinition<DescribeLogDirsArgs, DescribeLogDirsResult> = {
  apiKey: DESCRIBE_LOG_DIRS_API_KEY,
  apiName: 'DescribeLogDirs',
  versions: [1, 2, 3, 4],
  firstFlexibleVersion: 2,
  encode(version, args) {
    assertVersion(DescribeLogDirs, version);
    const w = writerFor(DescribeLogDirs, version);
    w.array(args.partitions === null ? null : byTopic(args.partitions), (w, t) => {
      w.string(t.topic).int32Array(t.items.map((p) => p.partition)).tags();
    });
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(DescribeLogDirs, version);
    const r = readerFor(DescribeLogDirs, version, body);
    const throttleTimeMs = r.int32();
    const errorCode = version >= 3 ? r.int16() : 0;
    const results =
      r.array((r) => {
        const errorCode = r.int16();
        const logDir = r.requiredString('log dir');
        const topics = r.topics('topic name', (r) => ({ partition: r.int32(), sizeBytes: r.int64(), offsetLag: r.int64(), isFuture: r.bool() }));
        const totalBytes = version >= 4 ? r.int64() : -1;
        const usableBytes = version >= 4 ? r.int64() : -1;
        r.tags();
        return { errorCode, logDir, topics, totalBytes, usableBytes };
      }) ?? [];
    r.tags();
    return { throttleTimeMs, errorCode, results };
  },
};
