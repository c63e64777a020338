// The configs a diagnosis compares with the last one for "changed in the last
// hour": what was set on each broker at runtime (`kafka-configs.sh --alter
// --entity-type brokers`, per broker or as the cluster-wide default) and on
// each topic. Only values set on purpose are kept: dynamic broker configs
// (sources DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG) and topic
// overrides (DYNAMIC_TOPIC_CONFIG). Static settings change only with a restart,
// which "what changed" reports as one. Sensitive values (null on the wire) are
// never kept. Read only by the bot (it keeps the history); never throws.
import type { ConnectionConfig } from '../kafka/connection.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import { errorMessage } from '../runtime/errors.ts';

/** DescribeConfigs' ConfigSource codes (KIP-226). */
const TOPIC_OVERRIDE = 1;
const DYNAMIC_BROKER = 2;
const DYNAMIC_DEFAULT = 3;
/** Above this many topics the topic side is left to the snapshot's subset (min ISR, unclean election, cleanup, segment size). */
export const MAX_DESCRIBED_TOPICS = 2_000;
/** Values kept per resource: far more than anyone sets by hand; keeps the stored facts small. */
const MAX_PER_RESOURCE = 100;

export interface ConfigView {
  /** Broker id → setting → value; "" holds the cluster-wide dynamic defaults. */
  brokers: Record<string, Record<string, string>>;
  /** Topic → its overrides; absent when there were too many topics to describe them all. */
  topics?: Record<string, Record<string, string>>;
  /**
   * The brokers run in KRaft mode (they have `process.roles`): their Metadata
   * answers name a random live broker as the controller, so a "controller
   * change" between two snapshots means nothing there.
   */
  kraft?: boolean;
}

export type ReadConfigsFn = (connection: ConnectionConfig, snapshot: ClusterSnapshot, opts: { timeoutMs: number }) => Promise<ConfigView | { error: string }>;

interface Entry {
  name: string;
  value: string | null;
  source?: number;
  isSensitive?: boolean;
}

function kept(entries: readonly Entry[], sources: readonly number[]): [string, string][] {
  return entries
    .filter((e) => e.value !== null && !e.isSensitive && e.source !== undefined && sources.includes(e.source))
    .map((e) => [e.name, e.value!] as [string, string])
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(0, MAX_PER_RESOURCE);
}

/** The view from DescribeConfigs answers (pure): per broker its own dynamic values, the cluster-wide ones once. */
export function configView(
  brokerAnswers: readonly { name: string; errorCode: number; entries: readonly Entry[] }[],
  topicAnswers: readonly { name: string; errorCode: number; entries: readonly Entry[] }[] | null,
): ConfigView {
  const brokers: Record<string, Record<string, string>> = {};
  let kraft = false;
  for (const b of brokerAnswers) {
    if (b.errorCode !== 0) continue;
    if (b.entries.some((e) => e.name === 'process.roles' && e.value)) kraft = true;
    brokers[b.name] = Object.fromEntries(kept(b.entries, [DYNAMIC_BROKER]));
    // Every broker reports the cluster-wide defaults too: kept once.
    brokers[''] = { ...(brokers[''] ?? {}), ...Object.fromEntries(kept(b.entries, [DYNAMIC_DEFAULT])) };
  }
  const mode = kraft ? { kraft } : {};
  if (!topicAnswers) return { brokers, ...mode };
  const topics: Record<string, Record<string, string>> = {};
  for (const t of topicAnswers) if (t.errorCode === 0) topics[t.name] = Object.fromEntries(kept(t.entries, [TOPIC_OVERRIDE]));
  return { brokers, topics, ...mode };
}

/** Reads the view over the Kafka protocol (DescribeConfigs, every config of each broker and topic). */
export const readConfigView: ReadConfigsFn = async (connection, snapshot, opts) => {
  const brokerIds = snapshot.brokers.map((b) => b.id).filter((id) => !snapshot.unreachableBrokers.includes(id));
  if (brokerIds.length === 0) return { error: 'no broker reachable' };
  try {
    const { openAdmin } = await import('../kafka/admin.ts');
    const admin = await openAdmin(connection, { timeoutMs: opts.timeoutMs });
    try {
      const topicNames = snapshot.topicFilter || snapshot.topics.length > MAX_DESCRIBED_TOPICS ? null : snapshot.topics.filter((t) => !t.internal).map((t) => t.name);
      const [brokers, topics] = await Promise.all([
        admin.describeConfigs(brokerIds.map((id) => ({ type: 'broker' as const, name: String(id) }))),
        topicNames && topicNames.length ? admin.describeConfigs(topicNames.map((name) => ({ type: 'topic' as const, name }))) : Promise.resolve(topicNames ? [] : null),
      ]);
      return configView(brokers, topics);
    } finally {
      await admin.close();
    }
  } catch (err) {
    return { error: errorMessage(err) };
  }
};
