// The broker settings the audit reads (DescribeConfigs names) and the
// majority value across brokers, shared by broker-config-drift.ts and
// topic-override-weaker.ts. Helpers only: no check lives here.

/** Broker settings read for the audit (DescribeConfigs names). */
export const DRIFT_CONFIGS = [
  'min.insync.replicas',
  'unclean.leader.election.enable',
  'default.replication.factor',
  'offsets.topic.replication.factor',
  'transaction.state.log.replication.factor',
  'transaction.state.log.min.isr',
  'auto.create.topics.enable',
  'log.retention.ms',
  'log.retention.hours',
  'log.retention.bytes',
  'log.segment.bytes',
  'log.cleaner.enable',
  'num.partitions',
  'message.max.bytes',
  'controlled.shutdown.enable',
] as const;

export const BROKER_CONFIG_NAMES: readonly string[] = DRIFT_CONFIGS;

/** The value most brokers have (ties: the lowest broker id's). */
export function majority(values: readonly [number, string | null][]): string | null {
  const counts = new Map<string | null, number>();
  for (const [, v] of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | null = null;
  let bestCount = -1;
  for (const [, v] of values) if (counts.get(v)! > bestCount) [best, bestCount] = [v, counts.get(v)!];
  return best;
}
