// Kafka's own rules for the names and numbers users type: topic names,
// partitions and broker ids. The one place they are written; every edge (Slack
// commands, CLI flags, alert labels, job payloads, plans) checks with these
// before a value can reach a plan, a host script or an SSM command.
import * as z from 'zod';

/** Kafka's rule (org.apache.kafka.common.internals.Topic): legal characters, 1..249 long, not "." or "..". */
export const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
export const TOPIC_NAME_RULE = 'topic names use only a-z A-Z 0-9 . _ - and are 1-249 characters';
/** Broker ids are Java ints ≥ 0. */
export const MAX_BROKER_ID = 2_147_483_647;
/** Far above any real partition count; keeps typed numbers bounded. */
export const MAX_PARTITION = 1_000_000;

export function isTopicName(value: string): boolean {
  return TOPIC_NAME.test(value) && value !== '.' && value !== '..';
}

export const TopicName = z
  .string()
  .regex(TOPIC_NAME, TOPIC_NAME_RULE)
  .refine((t) => t !== '.' && t !== '..', 'topic name cannot be "." or ".."');
export const PartitionId = z
  .number({ error: 'partition must be a non-negative integer' })
  .int('partition must be an integer')
  .min(0, 'partition must be ≥ 0')
  .max(MAX_PARTITION, `partition must be ≤ ${MAX_PARTITION}`);
export const BrokerId = z
  .number({ error: 'broker id must be a non-negative integer' })
  .int('broker id must be an integer')
  .min(0, 'broker id must be ≥ 0')
  .max(MAX_BROKER_ID, `broker id must be ≤ ${MAX_BROKER_ID}`);

/**
 * A number typed as text (Slack arguments, CLI flags, alert labels): digits
 * only, so "3" is accepted and "3; rm", "3.5", "-1" or " 3" are not.
 */
export function parseNonNegativeInt(text: string, max: number): number | null {
  if (!/^\d{1,10}$/.test(text)) return null;
  const n = Number(text);
  return n <= max ? n : null;
}

export const parseBrokerId = (text: string): number | null => parseNonNegativeInt(text, MAX_BROKER_ID);
export const parsePartition = (text: string): number | null => parseNonNegativeInt(text, MAX_PARTITION);

/** For schemas fed with text: digit strings become numbers, anything else stays as is and fails the number check. */
export const fromText = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v: unknown) => (typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : v), schema);
