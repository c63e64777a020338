// Which __consumer_offsets partition holds a consumer group. Kafka computes
// `Utils.abs(groupId.hashCode()) % numPartitions` (GroupCoordinatorService
// .partitionFor), and we must land on the same partition to tie a stuck group
// to the broker that is (or is not) loading it.

/** Java's String.hashCode: over UTF-16 code units, 32-bit signed overflow. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    // charCodeAt yields UTF-16 code units, exactly what Java iterates over.
    h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  }
  return h;
}

/** Kafka's Utils.abs: Math.abs, except Integer.MIN_VALUE maps to 0 instead of staying negative. */
export function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

export const DEFAULT_OFFSETS_TOPIC_PARTITIONS = 50;
export const CONSUMER_OFFSETS_TOPIC = '__consumer_offsets';

export function offsetsPartitionFor(groupId: string, offsetsTopicPartitions: number): number {
  if (!Number.isInteger(offsetsTopicPartitions) || offsetsTopicPartitions <= 0) {
    throw new RangeError(`offsets topic partition count must be a positive integer, got ${offsetsTopicPartitions}`);
  }
  return kafkaAbs(javaStringHashCode(groupId)) % offsetsTopicPartitions;
}
