// Every partition's ELR and last known ELR, from DescribeTopicPartitions
// (lib/kafka/api/describe-topic-partitions/codec.ts) where the broker serves it:
// one broker, page after page along the cursor, under a bound on pages.
// Where it does not (ZooKeeper mode, KRaft before 3.8) the snapshot keeps what
// Metadata said and leaves `elr` unset: unknown, never "empty".

import type { SnapshotError, TopicState } from './types.ts';
import { DESCRIBE_TOPIC_PARTITIONS_API_KEY, DescribeTopicPartitions, type DescribedPartition, type TopicPartitionCursor } from './api/describe-topic-partitions/codec.ts';
import { type WireBroker, UnsupportedVersionError } from './wire.ts';
import { withTimeout } from './limits.ts';
import { errorMessage } from '../runtime/errors.ts';

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
    let res;
    try {
      res = await withTimeout(
        conn.request(DescribeTopicPartitions, { topics: options.topics ?? [], responsePartitionLimit: pageSize, cursor }),
        options.pageBudget(),
        `DescribeTopicPartitions on broker ${conn.nodeId ?? conn.address}`,
      );
    } catch (err) {
      if (err instanceof UnsupportedVersionError) return { status: 'unsupported', reason: err.message };
      return { status: 'failed', reason: errorMessage(err) };
    }
    for (const t of res.topics) {
      if (t.errorCode !== 0 || t.name === null) continue;
      const byPartition = partitions.get(t.name) ?? new Map<number, DescribedPartition>();
      for (const p of t.partitions) if (p.errorCode === 0) byPartition.set(p.partitionIndex, p);
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

/**
 * Puts what DescribeTopicPartitions said into the snapshot's partitions: the
 * whole partition state from the one answer (leader, replicas, ISR and ELR read
 * together), for the partitions Metadata listed. Partitions it did not cover
 * keep Metadata's view and no `elr`.
 */
export function applyPartitionDetails(topics: readonly TopicState[], details: PartitionDetails): void {
  for (const t of topics) {
    const byPartition = details.get(t.name);
    if (!byPartition) continue;
    for (const p of t.partitions) {
      const d = byPartition.get(p.partition);
      if (!d) continue;
      p.leader = d.leaderId;
      p.replicas = d.replicaNodes;
      p.isr = d.isrNodes;
      p.offlineReplicas = d.offlineReplicas;
      p.elr = d.eligibleLeaderReplicas;
      p.lastKnownElr = d.lastKnownElr;
    }
  }
}

/** The snapshot's step: read from the first broker that answers, record why not otherwise. */
export async function readElrInto(
  topics: readonly TopicState[],
  brokers: readonly PageSource[],
  topicFilter: readonly string[] | null,
  pageBudget: () => number,
  errors: SnapshotError[],
  /** Settles with a reason to stop waiting (the snapshot: the quorum is known lost); Metadata's view then stands, and a later answer is dropped. */
  stopWaiting?: Promise<string>,
): Promise<'DescribeTopicPartitions' | 'Metadata'> {
  const expectedPartitions = topics.reduce((n, t) => n + t.partitions.length, 0);
  const failures: string[] = [];
  const stop = stopWaiting?.then((reason) => ({ stoppedBecause: reason }));
  // One broker answers for all; a second only when the first failed, never a third.
  for (const conn of brokers.slice(0, 2)) {
    const reading = readPartitionDetails(conn, { topics: topicFilter, expectedPartitions, pageBudget });
    const read = stop ? await Promise.race([reading, stop]) : await reading;
    if ('stoppedBecause' in read) {
      errors.push({ scope: 'elr', message: `eligible leader replicas unknown (${read.stoppedBecause}): partitions as Metadata lists them` });
      return 'Metadata';
    }
    if (read.status === 'unsupported') return 'Metadata';
    if (read.status === 'read') {
      applyPartitionDetails(topics, read.partitions);
      return 'DescribeTopicPartitions';
    }
    failures.push(read.reason);
  }
  if (failures.length > 0) errors.push({ scope: 'elr', message: `eligible leader replicas unknown: ${failures.join('; ')}` });
  return 'Metadata';
}
