// DescribeTopicPartitions (API key 75, KRaft 3.8+) at any broker: every
// partition's leader, replicas, ISR, ELR and last known ELR, page after page
// along the cursor, under a bound on pages. The version check is up front:
// a broker that does not list API 75 (ZooKeeper mode, KRaft before 3.8) is
// "unsupported", never asked.
import { DESCRIBE_TOPIC_PARTITIONS_API_KEY, DescribeTopicPartitions as Definition, type DescribeTopicPartitionsArgs, type DescribeTopicPartitionsResult, type DescribedPartition, type TopicPartitionCursor } from './codec.ts';
import type { AdminApi } from '../../router/spec.ts';
import { type WireBroker, UnsupportedVersionError } from '../../wire.ts';
import { withTimeout } from '../../limits.ts';
import { errorMessage } from '../../../runtime/errors.ts';

/** Kafka's own cap (max.request.partition.size.limit, default 2000): asking for more gets no more. */
export const PARTITIONS_PER_PAGE = 2000;

export type PartitionDetails = Map<string, Map<number, DescribedPartition>>;

export type PartitionDetailsRead =
  | { status: 'read'; partitions: PartitionDetails }
  | { status: 'unsupported'; reason: string }
  | { status: 'failed'; reason: string };

export interface PartitionDetailsOptions {
  /** null: every topic; otherwise exactly these. */
  topics: readonly string[] | null;
  /** Partitions the cluster is known to have (from Metadata): bounds the pages asked for. */
  expectedPartitions: number;
  /** Budget for one page (capped by what the caller has left). */
  pageBudget: () => number;
  pageSize?: number;
}

/** One page: these topics ([]: every one), from this cursor on. */
export interface PageInput {
  topics: readonly string[];
  pageSize: number;
  cursor: TopicPartitionCursor | null;
}

/** A page's topics that came with no error, each with its partitions that came with none; where the next page starts. */
export interface DescribedPage {
  topics: { name: string; partitions: DescribedPartition[] }[];
  nextCursor: TopicPartitionCursor | null;
}

export const DescribeTopicPartitions: AdminApi<PageInput, DescribeTopicPartitionsArgs, DescribeTopicPartitionsResult, DescribedPage> = {
  name: 'DescribeTopicPartitions',
  api: Definition,
  route: { to: 'any' },
  build: ({ topics, pageSize, cursor }) => ({ topics, responsePartitionLimit: pageSize, cursor }),
  toResults: (res) => ({
    topics: res.topics.flatMap((t) => (t.errorCode !== 0 || t.name === null ? [] : [{ name: t.name, partitions: t.partitions.filter((p) => p.errorCode === 0) }])),
    nextCursor: res.nextCursor,
  }),
};

/** What the reader needs of a broker connection (a WireBroker; a fake in tests). */
export type PageSource = Pick<WireBroker, 'connect' | 'apiVersions' | 'request' | 'nodeId' | 'address'>;

/** Does this (connected) broker serve DescribeTopicPartitions? Only KRaft brokers from 3.8 list API 75. */
export function servesDescribeTopicPartitions(conn: PageSource): boolean {
  return conn.apiVersions?.[DESCRIBE_TOPIC_PARTITIONS_API_KEY] !== undefined;
}

const cursorKey = (c: TopicPartitionCursor) => `${c.topicName}\u0000${c.partitionIndex}`;

/** Reads every page from one broker; a failed page fails the read (no half-ELR snapshot). */
export async function readPartitionDetails(conn: PageSource, options: PartitionDetailsOptions): Promise<PartitionDetailsRead> {
  const pageSize = options.pageSize ?? PARTITIONS_PER_PAGE;
  const partitions: PartitionDetails = new Map();
  try {
    await withTimeout(conn.connect(), options.pageBudget(), `connect to broker ${conn.nodeId ?? conn.address}`);
  } catch (err) {
    return { status: 'failed', reason: errorMessage(err) };
  }
  if (!servesDescribeTopicPartitions(conn)) return { status: 'unsupported', reason: `broker ${conn.nodeId ?? conn.address} does not serve DescribeTopicPartitions (API key 75)` };
  // A page ends inside a topic or at a topic's start: at most one extra page per boundary, plus the last.
  const maxPages = Math.ceil(options.expectedPartitions / pageSize) + 2;
  const seen = new Set<string>();
  let cursor: TopicPartitionCursor | null = null;
  for (let page = 0; page < maxPages; page++) {
    let res: DescribedPage;
    try {
      const input: PageInput = { topics: options.topics ?? [], pageSize, cursor };
      const answer = await withTimeout(conn.request(DescribeTopicPartitions.api, DescribeTopicPartitions.build(input, { requestTimeoutMs: 0 })), options.pageBudget(), `DescribeTopicPartitions on broker ${conn.nodeId ?? conn.address}`);
      res = DescribeTopicPartitions.toResults(answer, input, { brokerId: conn.nodeId });
    } catch (err) {
      if (err instanceof UnsupportedVersionError) return { status: 'unsupported', reason: err.message };
      return { status: 'failed', reason: errorMessage(err) };
    }
    for (const t of res.topics) {
      const byPartition = partitions.get(t.name) ?? new Map<number, DescribedPartition>();
      for (const p of t.partitions) byPartition.set(p.partitionIndex, p);
      partitions.set(t.name, byPartition);
    }
    if (!res.nextCursor) return { status: 'read', partitions };
    const key = cursorKey(res.nextCursor);
    if (seen.has(key)) return { status: 'failed', reason: `DescribeTopicPartitions: the cursor did not advance (${res.nextCursor.topicName}-${res.nextCursor.partitionIndex})` };
    seen.add(key);
    cursor = res.nextCursor;
  }
  return { status: 'failed', reason: `DescribeTopicPartitions: still more after ${maxPages} pages for ${options.expectedPartitions} partitions` };
}
