// What the operation requests share (each kind's own schema is in kinds/<kind>/request.ts),
// checked before a request can reach a plan.
// The rules for topics, partitions and broker ids are Kafka's, in lib/kafka/names.ts.
import * as z from 'zod';
import { BrokerId, PartitionId, TopicName, fromText } from '../kafka/names.ts';

export const PartitionAssignment = z.object({
  topic: TopicName,
  partition: fromText(PartitionId),
  replicas: z
    .array(fromText(BrokerId))
    .min(1)
    .max(32)
    .refine((r) => new Set(r).size === r.length, 'a broker appears twice in one replica list'),
});
export type PartitionAssignment = z.infer<typeof PartitionAssignment>;

/** Replication throttle in bytes/s for reassignments (kafka-reassign-partitions.sh --throttle). */
export const ThrottleBytesPerSec = z.number().int().min(1024).max(10 * 1024 ** 3);
export const DEFAULT_THROTTLE_BYTES_PER_SEC = 50 * 1024 * 1024;

/** Formats a zod error as one line a Slack user can act on. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}
