// The operation requests users type, checked before they can reach a plan.
// The rules for topics, partitions and broker ids are Kafka's, in lib/kafka/names.ts.
import * as z from 'zod';
import { BrokerId, PartitionId, TopicName, fromText } from '../kafka/names.ts';

export const LeaderOverrideRequest = z.object({
  topic: TopicName,
  partition: fromText(PartitionId),
  replica: fromText(BrokerId).optional(),
});
export type LeaderOverrideRequest = z.infer<typeof LeaderOverrideRequest>;

export const DrainRequest = z.object({
  broker: fromText(BrokerId),
  /**
   * Move what can keep its replication factor elsewhere and leave the rest
   * (e.g. RF 3 on a 3-broker cluster): those stay online, under-replicated,
   * while the broker is down. Without it such a cluster is refused.
   */
  partial: z.boolean().default(false),
});
export type DrainRequest = z.infer<typeof DrainRequest>;

export const RaiseReplicationFactorRequest = z.object({
  topic: TopicName,
  replicationFactor: fromText(z.number({ error: 'replication factor must be an integer' }).int('replication factor must be an integer').min(2, 'replication factor must be ≥ 2').max(32, 'replication factor must be ≤ 32')),
});
export type RaiseReplicationFactorRequest = z.infer<typeof RaiseReplicationFactorRequest>;

export const RestartRequest = z.object({
  /** The brokers to restart; a rolling restart orders them itself. Empty with `rolling`: every broker. */
  brokers: z.array(fromText(BrokerId)).max(64).refine((b) => new Set(b).size === b.length, 'a broker appears twice'),
  rolling: z.boolean().default(false),
});
export type RestartRequest = z.infer<typeof RestartRequest>;

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

export const ExplicitReassignmentRequest = z.object({
  partitions: z
    .array(PartitionAssignment)
    .min(1)
    .max(20_000)
    .refine((ps) => new Set(ps.map((p) => `${p.topic}\u0000${p.partition}`)).size === ps.length, 'a partition appears twice'),
});
export type ExplicitReassignmentRequest = z.infer<typeof ExplicitReassignmentRequest>;

export const PreferredElectionRequest = z.object({
  /** Limit to these topics (every partition of each). */
  topics: z.array(TopicName).max(100).optional(),
  /** Limit to these partitions; with neither, every partition not led by its preferred replica. */
  partitions: z.array(z.object({ topic: TopicName, partition: fromText(PartitionId) })).max(20_000).optional(),
});
export type PreferredElectionRequest = z.infer<typeof PreferredElectionRequest>;

/** Replication throttle in bytes/s for reassignments (kafka-reassign-partitions.sh --throttle). */
export const ThrottleBytesPerSec = z.number().int().min(1024).max(10 * 1024 ** 3);
export const DEFAULT_THROTTLE_BYTES_PER_SEC = 50 * 1024 * 1024;

/** Formats a zod error as one line a Slack user can act on. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}
