// Every partition's ELR and last known ELR, from DescribeTopicPartitions
// (lib/kafka/api/describe-topic-partitions/call.ts: the paging, the version
// check, the result mapping) where the broker serves it: one broker, a second
// only if the first failed.
// Where it does not (ZooKeeper mode, KRaft before 3.8) the snapshot keeps what
// Metadata said and leaves `elr` unset: unknown, never "empty".

import type { SnapshotError, TopicState } from './types.ts';
import { readPartitionDetails, type PageSource, type PartitionDetails } from './api/describe-topic-partitions/call.ts';
import { firstThenSecond } from './router/passes.ts';

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
  const stop = stopWaiting?.then((reason) => ({ stoppedBecause: reason }));
  // One broker answers for all; a second only when the first failed, never a third (the router's rule).
  const read = await firstThenSecond(
    brokers,
    (conn) => {
      const reading = readPartitionDetails(conn, { topics: topicFilter, expectedPartitions, pageBudget });
      return stop ? Promise.race([reading, stop]) : reading;
    },
    (r) => ('status' in r && r.status === 'failed' ? r.reason : null),
  );
  if ('failures' in read) {
    if (read.failures.length > 0) errors.push({ scope: 'elr', message: `eligible leader replicas unknown: ${read.failures.join('; ')}` });
    return 'Metadata';
  }
  const r = read.answer;
  if ('stoppedBecause' in r) {
    errors.push({ scope: 'elr', message: `eligible leader replicas unknown (${r.stoppedBecause}): partitions as Metadata lists them` });
    return 'Metadata';
  }
  if (r.status !== 'read') return 'Metadata';
  applyPartitionDetails(topics, r.partitions);
  return 'DescribeTopicPartitions';
}
