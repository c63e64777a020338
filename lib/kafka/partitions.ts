// Topic-partition helpers every layer shares: keys, names, grouping and an
// O(1) lookup into a snapshot (planners over 200k partitions must not scan).

import type { PartitionState, TopicState } from './types.ts';

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** A Map/Set key for a topic-partition (NUL cannot occur in a topic name). */
export const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/** "orders-3", as Kafka's tools print a partition. */
export const tpName = (tp: TopicPartition): string => `${tp.topic}-${tp.partition}`;

/** Items by topic, first-seen order kept: the shape every request wants. */
export function groupByTopic<T extends { topic: string }>(items: readonly T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const list = m.get(it.topic);
    if (list) list.push(it);
    else m.set(it.topic, [it]);
  }
  return m;
}

/** groupByTopic as a list of { topic, items }. */
export function byTopic<T extends { topic: string }>(items: readonly T[]): { topic: string; items: T[] }[] {
  return [...groupByTopic(items)].map(([topic, list]) => ({ topic, items: list }));
}

/** Throws when a topic-partition appears twice (Kafka would answer one of them, or refuse the request). */
export function assertUnique(what: string, items: readonly TopicPartition[]): void {
  const seen = new Set<string>();
  for (const { topic, partition } of items) {
    const k = tpKey(topic, partition);
    if (seen.has(k)) throw new Error(`${what}: ${topic}-${partition} appears more than once`);
    seen.add(k);
  }
}

/** Partition lookup in O(1) per call. */
export function partitionLookup(s: { readonly topics: readonly TopicState[] }): (topic: string, partition: number) => PartitionState | undefined {
  const topics = new Map(s.topics.map((t) => [t.name, t]));
  return (topic, partition) => {
    const t = topics.get(topic);
    if (!t) return undefined;
    const direct = t.partitions[partition];
    return direct?.partition === partition ? direct : t.partitions.find((x) => x.partition === partition);
  };
}
