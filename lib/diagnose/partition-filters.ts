// The partition sets kafka-topics.sh --describe reports, with its exact
// semantics (org.apache.kafka.tools.TopicCommand.PartitionDescription), so
// that what we call offline / under-replicated / under-min-ISR is what an
// operator sees when they check by hand.

import type { ClusterSnapshot, PartitionState, TopicState } from '../kafka/types.ts';
import type { TopicPartitionRef } from './types.ts';

/** min.insync.replicas when the topic config could not be read: Kafka's default. */
export const DEFAULT_MIN_INSYNC_REPLICAS = 1;

export function hasLeader(p: PartitionState): boolean {
  return p.leader >= 0;
}

/** Replication factor as TopicCommand computes it: replicas being added by a reassignment do not count. */
export function replicationFactor(p: PartitionState): number {
  return p.replicas.length - (p.addingReplicas?.length ?? 0);
}

/** --under-replicated-partitions: replication factor − |ISR| > 0. */
export function isUnderReplicated(p: PartitionState): boolean {
  return replicationFactor(p) - p.isr.length > 0;
}

/** --unavailable-partitions: no leader, or the leader is not a live broker. */
export function isUnavailable(p: PartitionState, liveBrokers: ReadonlySet<number>): boolean {
  return !hasLeader(p) || !liveBrokers.has(p.leader);
}

/** --under-min-isr-partitions: no leader, or |ISR| < the topic's min.insync.replicas. */
export function isUnderMinIsr(p: PartitionState, minIsr: number): boolean {
  return !hasLeader(p) || p.isr.length < minIsr;
}

/** --at-min-isr-partitions: |ISR| = min.insync.replicas (one more loss and acks=all writes fail). */
export function isAtMinIsr(p: PartitionState, minIsr: number): boolean {
  return p.isr.length === minIsr;
}

export function minIsrOf(topic: TopicState): number {
  return topic.config?.minInsyncReplicas ?? DEFAULT_MIN_INSYNC_REPLICAS;
}

export function liveBrokerIds(snapshot: ClusterSnapshot): Set<number> {
  return new Set(snapshot.brokers.map((b) => b.id));
}

export interface PartitionHealthSets {
  unavailable: TopicPartitionRef[];
  underReplicated: TopicPartitionRef[];
  underMinIsr: TopicPartitionRef[];
  atMinIsr: TopicPartitionRef[];
}

/** The four kafka-topics.sh filter sets over a whole snapshot, in topic then partition order. */
export function partitionHealthSets(snapshot: ClusterSnapshot): PartitionHealthSets {
  const live = liveBrokerIds(snapshot);
  const sets: PartitionHealthSets = { unavailable: [], underReplicated: [], underMinIsr: [], atMinIsr: [] };
  for (const topic of snapshot.topics) {
    const minIsr = minIsrOf(topic);
    for (const p of topic.partitions) {
      const ref = { topic: topic.name, partition: p.partition };
      if (isUnavailable(p, live)) sets.unavailable.push(ref);
      if (isUnderReplicated(p)) sets.underReplicated.push(ref);
      if (isUnderMinIsr(p, minIsr)) sets.underMinIsr.push(ref);
      if (isAtMinIsr(p, minIsr)) sets.atMinIsr.push(ref);
    }
  }
  return sets;
}
