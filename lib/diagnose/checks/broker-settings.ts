// Preventive checks of broker settings (DescribeConfigs per broker): defaults
// that create under-replicated topics, settings that differ across brokers,
// and topics that override a safer cluster-wide setting. The audit runs them.

import type { Check, CheckInput } from './check.ts';
import { makeFinding } from '../finding.ts';
import { minIsrOf } from '../partition-filters.ts';
import type { Finding } from '../types.ts';
import { topicFinding, userTopics } from './topic-facts.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'broker-replication-defaults': true;
    'broker-config-drift': true;
    'topic-override-weaker': true;
  }
}

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

export const MIN_OFFSETS_TOPIC_RF = 3;
export const MIN_DEFAULT_RF = 2;

function brokerReplicationDefaults({ brokerConfigs }: CheckInput): Finding[] {
  const out: Finding[] = [];
  for (const [id, c] of brokerConfigs ?? []) {
    const low: string[] = [];
    const offsetsRf = Number(c['offsets.topic.replication.factor']);
    const defaultRf = Number(c['default.replication.factor']);
    if (c['offsets.topic.replication.factor'] != null && offsetsRf < MIN_OFFSETS_TOPIC_RF) low.push(`offsets.topic.replication.factor=${offsetsRf}`);
    if (c['default.replication.factor'] != null && defaultRf < MIN_DEFAULT_RF) low.push(`default.replication.factor=${defaultRf}`);
    if (low.length === 0) continue;
    out.push(
      makeFinding({
        kind: 'broker-replication-defaults',
        severity: 'warning',
        title: `Broker ${id} creates topics with too few replicas (${low.join(', ')})`,
        summary: 'Topics created without an explicit replication factor (and a new __consumer_offsets) get too few copies; removing one broker can then take partitions offline.',
        brokers: [id],
        evidence: low.map((l) => ({ label: l.split('=')[0]!, value: l.split('=')[1]!, source: `broker:${id}` })),
        nextActions: [`Set offsets.topic.replication.factor=${MIN_OFFSETS_TOPIC_RF} and default.replication.factor=3 in broker ${id}'s config.`],
      }),
    );
  }
  return out;
}

/** The value most brokers have (ties: the lowest broker id's). */
function majority(values: readonly [number, string | null][]): string | null {
  const counts = new Map<string | null, number>();
  for (const [, v] of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | null = null;
  let bestCount = -1;
  for (const [, v] of values) if (counts.get(v)! > bestCount) [best, bestCount] = [v, counts.get(v)!];
  return best;
}

function brokerConfigDrift({ brokerConfigs }: CheckInput): Finding[] {
  if (!brokerConfigs || brokerConfigs.size < 2) return [];
  const out: Finding[] = [];
  const ids = [...brokerConfigs.keys()].sort((a, b) => a - b);
  for (const name of DRIFT_CONFIGS) {
    const values = ids.map((id) => [id, brokerConfigs.get(id)![name] ?? null] as [number, string | null]);
    if (new Set(values.map(([, v]) => v)).size < 2) continue;
    const common = majority(values);
    const odd = values.filter(([, v]) => v !== common).map(([id]) => id);
    out.push(
      makeFinding({
        kind: 'broker-config-drift',
        severity: 'warning',
        title: `${name} differs across brokers (${values.map(([id, v]) => `${id}=${v ?? 'unset'}`).join(', ')})`,
        summary: `Brokers should agree on ${name}; what a topic gets then depends on which broker created or leads it, and a replaced broker silently changes behaviour.`,
        brokers: odd,
        evidence: values.map(([id, v]) => ({ label: name, value: v ?? 'unset', source: `broker:${id}` })),
        identity: [`config:${name}`],
        nextActions: [`Make ${name} the same in every broker's config (most have ${common ?? 'it unset'}).`],
      }),
    );
  }
  return out;
}

function topicOverrideWeaker({ snapshot, brokerConfigs }: CheckInput): Finding[] {
  if (!brokerConfigs || brokerConfigs.size === 0) return [];
  const defaults = [...brokerConfigs];
  const brokerMinIsr = Number(majority(defaults.map(([id, c]) => [id, c['min.insync.replicas'] ?? null])) ?? 1);
  const brokerUnclean = majority(defaults.map(([id, c]) => [id, c['unclean.leader.election.enable'] ?? null])) === 'true';
  return userTopics(snapshot).flatMap((t) => {
    const overrides = t.config?.overrides ?? [];
    const weaker: { label: string; value: string }[] = [];
    if (overrides.includes('min.insync.replicas') && minIsrOf(t) < brokerMinIsr) weaker.push({ label: 'min.insync.replicas', value: `${minIsrOf(t)} (broker default ${brokerMinIsr})` });
    if (overrides.includes('unclean.leader.election.enable') && t.config?.uncleanLeaderElectionEnable && !brokerUnclean) weaker.push({ label: 'unclean.leader.election.enable', value: 'true (broker default false)' });
    if (weaker.length === 0) return [];
    return [
      topicFinding('topic-override-weaker', t, {
        severity: 'warning',
        title: `Topic ${t.name} overrides a safer broker default (${weaker.map((w) => w.label).join(', ')})`,
        summary: `The cluster-wide setting does not protect ${t.name}: its own override is weaker.`,
        evidence: weaker.map((w) => ({ ...w, source: 'topic configs' })),
        nextActions: [`Remove the override unless its owners need it: kafka-configs.sh --alter --entity-type topics --entity-name ${t.name} --delete-config ${weaker[0]!.label}`],
      }),
    ];
  });
}

export const BROKER_SETTING_CHECKS: readonly Check[] = [
  { kinds: ['broker-replication-defaults'], needs: ['broker-configs'], diagnosis: false, preventive: { prevents: 'new topics created with a single copy' }, detect: brokerReplicationDefaults },
];

/** After the host checks in the audit's report order. */
export const BROKER_DRIFT_CHECKS: readonly Check[] = [
  {
    kinds: ['broker-config-drift'],
    needs: ['broker-configs'],
    diagnosis: false,
    preventive: { prevents: 'topics and brokers behaving differently depending on which broker created or leads them' },
    detect: brokerConfigDrift,
  },
  { kinds: ['topic-override-weaker'], needs: ['broker-configs'], diagnosis: false, preventive: { prevents: 'a topic left outside the cluster-wide safety settings' }, detect: topicOverrideWeaker },
];
