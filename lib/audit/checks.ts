// The preventive audit's checks: one small pure function per kind, each with
// the failure it prevents. Input is the same snapshot and host probes the
// diagnosis uses, plus broker configs (DescribeConfigs per broker) and, in the
// bot, storage samples kept between runs. Read-only by construction: nothing
// here has I/O.

import type { ClusterSnapshot, TopicState } from '../kafka/types.ts';
import type { HostProbeOutcome } from '../hosts/types.ts';
import { SHUTDOWN_MARGIN, stopTimeoutShortfall } from '../hosts/shutdown-timing.ts';
import type { Finding, FindingKind } from '../diagnose/types.ts';
import { makeFinding, type FindingInput } from '../diagnose/finding.ts';
import { detectHostFindings } from '../diagnose/detectors/hosts.ts';
import { minIsrOf } from '../diagnose/partition-filters.ts';
import { trendFindings, type StorageSample } from './storage-trend.ts';
import { quorumSizeUnsafe, staticQuorumVoters } from './quorum-checks.ts';

/** Broker configs by broker id: name → value (null when sensitive or unset). */
export type BrokerConfigs = ReadonlyMap<number, Readonly<Record<string, string | null>>>;

export interface AuditInput {
  snapshot: ClusterSnapshot;
  probes: readonly HostProbeOutcome[];
  /** False on clusters without host access (Amazon MSK): host checks are skipped. */
  hostAccess: boolean;
  /** null when no broker answered DescribeConfigs. */
  brokerConfigs: BrokerConfigs | null;
  /** Earlier storage samples (the bot); null in the one-shot CLI: no trend yet. */
  storageHistory: readonly StorageSample[] | null;
  nowMs: number;
}

export type CheckSource = 'metadata' | 'broker-configs' | 'hosts' | 'history';

export interface AuditCheck {
  kind: FindingKind;
  /** What it looks at, for the list of checks that could not run. */
  needs: CheckSource;
  /** The failure this risk leads to. */
  prevents: string;
  run(input: AuditInput): Finding[];
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

export const SAFE_INTERNAL_RF = 3;
export const SAFE_INTERNAL_MIN_ISR = 2;
export const MIN_OFFSETS_TOPIC_RF = 3;
export const MIN_DEFAULT_RF = 2;
/**
 * The least systemd stop timeout: what a controlled shutdown needs when none was
 * measured, and the floor when one was (a shutdown timed on a quiet day says
 * little about one under load with thousands of leaders to move).
 */
export const UNMEASURED_SHUTDOWN_SEC = 120;
/** fd / mmap use above this share of the limit leaves less than 20% headroom. */
export const HEADROOM_USED_PERCENT = 80;

const INTERNAL_TOPICS = ['__consumer_offsets', '__transaction_state'];

function rfOf(t: TopicState): number {
  let rf = Infinity;
  for (const p of t.partitions) rf = Math.min(rf, p.replicas.length);
  return rf === Infinity ? 0 : rf;
}

const userTopics = (s: ClusterSnapshot) => s.topics.filter((t) => !t.internal && t.partitions.length > 0);

function topicFinding(kind: FindingKind, t: TopicState, input: Omit<FindingInput, 'kind' | 'identity' | 'partitions'>): Finding {
  return makeFinding({ ...input, kind, identity: [`topic:${t.name}`], partitions: t.partitions.map((p) => ({ topic: t.name, partition: p.partition })) });
}

function replicationFactorOne({ snapshot }: AuditInput): Finding[] {
  return userTopics(snapshot)
    .filter((t) => rfOf(t) === 1)
    .map((t) =>
      topicFinding('replication-factor-one', t, {
        severity: 'error',
        title: `Topic ${t.name} has replication factor 1`,
        summary: `Every partition of ${t.name} lives on one broker: if that broker fails or is removed, its partitions go offline and there is no other copy to elect.`,
        evidence: [{ label: 'replication factor', value: '1', source: 'metadata' }, { label: 'partitions', value: String(t.partitions.length), source: 'metadata' }],
        nextActions: [`Raise it: /kafka raise-rf ${t.name} 3`],
      }),
    );
}

function minIsrNotBelowRf({ snapshot }: AuditInput): Finding[] {
  return userTopics(snapshot)
    .filter((t) => t.config !== null && rfOf(t) > 1 && minIsrOf(t) >= rfOf(t))
    .map((t) =>
      topicFinding('min-isr-not-below-rf', t, {
        severity: 'warning',
        title: `Topic ${t.name}: min.insync.replicas ${minIsrOf(t)} ≥ replication factor ${rfOf(t)}`,
        summary: `With acks=all, losing any one replica of ${t.name} (a restart is enough) stops every write with NOT_ENOUGH_REPLICAS.`,
        evidence: [
          { label: 'min.insync.replicas', value: String(minIsrOf(t)), source: 'topic configs' },
          { label: 'replication factor', value: String(rfOf(t)), source: 'metadata' },
        ],
        nextActions: [`Set min.insync.replicas=${rfOf(t) - 1} on ${t.name}, or raise its replication factor.`],
      }),
    );
}

function minIsrOne({ snapshot }: AuditInput): Finding[] {
  return userTopics(snapshot)
    .filter((t) => t.config !== null && rfOf(t) >= 3 && minIsrOf(t) === 1)
    .map((t) =>
      topicFinding('min-isr-one', t, {
        severity: 'warning',
        title: `Topic ${t.name}: min.insync.replicas 1 with replication factor ${rfOf(t)}`,
        summary: `acks=all writes to ${t.name} are acknowledged by the leader alone once the ISR shrinks; if that leader is then lost, acknowledged data exists nowhere else.`,
        evidence: [{ label: 'min.insync.replicas', value: '1', source: 'topic configs' }, { label: 'replication factor', value: String(rfOf(t)), source: 'metadata' }],
        nextActions: [`Set min.insync.replicas=2 on ${t.name}.`],
      }),
    );
}

function uncleanElection({ snapshot, brokerConfigs }: AuditInput): Finding[] {
  const out = userTopics(snapshot)
    .filter((t) => t.config?.uncleanLeaderElectionEnable)
    .map((t) =>
      topicFinding('unclean-election-enabled', t, {
        severity: 'warning',
        title: `Topic ${t.name} allows unclean leader election`,
        summary: `When the ISR of a ${t.name} partition is lost, Kafka elects an out-of-sync replica by itself and truncates acknowledged writes on every replica.`,
        evidence: [{ label: 'unclean.leader.election.enable', value: 'true', source: 'topic configs' }],
        nextActions: [`Remove it: kafka-configs.sh --alter --entity-type topics --entity-name ${t.name} --delete-config unclean.leader.election.enable`],
      }),
    );
  const brokers = [...(brokerConfigs ?? [])].filter(([, c]) => c['unclean.leader.election.enable'] === 'true').map(([id]) => id);
  if (brokers.length > 0) {
    out.push(
      makeFinding({
        kind: 'unclean-election-enabled',
        severity: 'warning',
        title: `Unclean leader election is the default on ${brokers.length === 1 ? `broker ${brokers[0]}` : `brokers ${brokers.join(', ')}`}`,
        summary: 'Every topic without its own setting lets Kafka elect an out-of-sync replica and truncate acknowledged writes.',
        brokers,
        evidence: [{ label: 'unclean.leader.election.enable', value: 'true', source: 'broker configs' }],
        identity: ['default'],
        nextActions: ['Set unclean.leader.election.enable=false in every broker config (or as the dynamic cluster default).'],
      }),
    );
  }
  return out;
}

function internalTopicUnsafe({ snapshot }: AuditInput): Finding[] {
  return snapshot.topics
    .filter((t) => INTERNAL_TOPICS.includes(t.name) && t.partitions.length > 0)
    .filter((t) => rfOf(t) < SAFE_INTERNAL_RF || (t.config !== null && minIsrOf(t) < SAFE_INTERNAL_MIN_ISR))
    .map((t) =>
      makeFinding({
        kind: 'internal-topic-unsafe',
        severity: rfOf(t) < 2 ? 'error' : 'warning',
        title: `${t.name}: replication factor ${rfOf(t)}, min.insync.replicas ${t.config ? minIsrOf(t) : '?'}`,
        summary: `${t.name} holds ${t.name === '__consumer_offsets' ? "every group's committed offsets" : "every transaction's state"}; below RF ${SAFE_INTERNAL_RF} / min ISR ${SAFE_INTERNAL_MIN_ISR} one broker failure can stop or lose them.`,
        evidence: [
          { label: 'replication factor', value: String(rfOf(t)), source: 'metadata' },
          { label: 'min.insync.replicas', value: t.config ? String(minIsrOf(t)) : 'unknown', source: 'topic configs' },
        ],
        identity: [`topic:${t.name}`],
        nextActions: [rfOf(t) < SAFE_INTERNAL_RF ? `Raise its replication factor: /kafka raise-rf ${t.name} 3` : `Set min.insync.replicas=2 on ${t.name}.`],
      }),
    );
}

function brokerReplicationDefaults({ brokerConfigs }: AuditInput): Finding[] {
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

const okReports = (probes: readonly HostProbeOutcome[]) => probes.flatMap((o) => (o.ok ? [{ brokerId: o.brokerId, report: o.report }] : []));

function stopTimeoutBelowShutdown({ probes }: AuditInput): Finding[] {
  return okReports(probes).flatMap(({ brokerId, report }) => {
    const sd = report.systemd;
    if (!sd || sd.timeoutStopSec === null) return [];
    const short = stopTimeoutShortfall(sd.timeoutStopSec, report.lastShutdownSeconds ?? null, UNMEASURED_SHUTDOWN_SEC);
    if (!short) return [];
    const took = short.measuredText;
    const why = short.belowMeasured
      ? `its last controlled shutdown took ${took}`
      : short.neededSec > UNMEASURED_SHUTDOWN_SEC
        ? `less than ${SHUTDOWN_MARGIN}× its last controlled shutdown (${took})`
        : `under ${UNMEASURED_SHUTDOWN_SEC}s`;
    return [
      makeFinding({
        kind: 'stop-timeout-below-shutdown',
        severity: short.belowMeasured ? 'critical' : 'warning',
        title: `Broker ${brokerId}: systemd kills it after ${sd.timeoutStopSec}s, ${why}`,
        summary: `${sd.unit} has TimeoutStopSec=${sd.timeoutStopSec}s. A stop that takes longer is SIGKILLed: no clean shutdown, a long recovery at the next start, and possibly a leaderless partition.`,
        brokers: [brokerId],
        evidence: [
          { label: 'TimeoutStopSec', value: sd.timeoutStopRaw ?? String(sd.timeoutStopSec), source: `broker:${brokerId}` },
          {
            label: 'controlled shutdown',
            value: took === null ? `not in server.log (assumed ${UNMEASURED_SHUTDOWN_SEC}s)` : `${took} (the last one in server.log); wanted at least ${short.neededSec}s`,
            source: `broker:${brokerId}`,
          },
        ],
        nextActions: [`Set TimeoutStopSec=${Math.max(600, short.neededSec)} in a drop-in for ${sd.unit} and run systemctl daemon-reload.`],
      }),
    ];
  });
}

/** The diagnosis's own host rules for what they already judge the same way (shared code, shared kinds). */
const fromDiagnosis =
  (kind: FindingKind) =>
  ({ snapshot, probes }: AuditInput): Finding[] =>
    detectHostFindings(snapshot, probes).filter((f) => f.kind === kind);

function fdMmapHeadroom({ probes }: AuditInput): Finding[] {
  return okReports(probes).flatMap(({ brokerId, report }) => {
    const tight = (
      [
        ['open file descriptors', report.limits.openFds, report.limits.maxFds, 'ulimit -n'],
        ['memory maps', report.limits.mapCount, report.limits.maxMapCount, 'vm.max_map_count'],
      ] as const
    ).filter(([, used, max]) => used !== null && max !== null && max > 0 && (used / max) * 100 > HEADROOM_USED_PERCENT);
    if (tight.length === 0) return [];
    return [
      makeFinding({
        kind: 'fd-mmap-headroom',
        severity: 'warning',
        title: `Broker ${brokerId}: under 20% headroom on ${tight.map(([what]) => what).join(' and ')}`,
        summary: 'Each segment costs file descriptors and memory maps; more partitions or smaller segments push the broker over its limit, and it exits when it cannot open a segment.',
        brokers: [brokerId],
        evidence: tight.map(([what, used, max, limit]) => ({ label: what, value: `${used} of ${max} (${limit}), ${Math.round((used! / max!) * 100)}%`, source: `broker:${brokerId}` })),
        nextActions: ['Raise LimitNOFILE / vm.max_map_count before partitions grow; check for topics with tiny segment.bytes.'],
      }),
    ];
  });
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

function brokerConfigDrift({ brokerConfigs }: AuditInput): Finding[] {
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

function topicOverrideWeaker({ snapshot, brokerConfigs }: AuditInput): Finding[] {
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

const storageTrend =
  (kind: 'disk-trend-full' | 'inode-trend-full') =>
  ({ probes, storageHistory, nowMs }: AuditInput): Finding[] =>
    storageHistory === null ? [] : trendFindings(kind, storageHistory, probes, nowMs);

/** Every check, in report order. */
export const AUDIT_CHECKS: readonly AuditCheck[] = [
  { kind: 'replication-factor-one', needs: 'metadata', prevents: 'partitions offline with no copy to elect when their only broker fails or is removed', run: replicationFactorOne },
  { kind: 'min-isr-not-below-rf', needs: 'metadata', prevents: 'acks=all writes stopping when any one replica is down', run: minIsrNotBelowRf },
  { kind: 'min-isr-one', needs: 'metadata', prevents: 'acknowledged writes lost when an ISR of one loses its leader', run: minIsrOne },
  { kind: 'unclean-election-enabled', needs: 'metadata', prevents: 'acknowledged writes truncated by an automatic unclean election', run: uncleanElection },
  { kind: 'internal-topic-unsafe', needs: 'metadata', prevents: 'every group (or transaction) stopping or losing its position with one broker', run: internalTopicUnsafe },
  { kind: 'broker-replication-defaults', needs: 'broker-configs', prevents: 'new topics created with a single copy', run: brokerReplicationDefaults },
  { kind: 'stop-timeout-below-shutdown', needs: 'hosts', prevents: 'a broker SIGKILLed mid-shutdown, a long recovery and a leaderless partition', run: stopTimeoutBelowShutdown },
  { kind: 'log-cleaner-stalled', needs: 'hosts', prevents: '__consumer_offsets growing until group coordinators take hours to load', run: fromDiagnosis('log-cleaner-stalled') },
  { kind: 'consumer-offsets-oversized', needs: 'hosts', prevents: 'groups unable to consume while an oversized offsets partition loads', run: fromDiagnosis('consumer-offsets-oversized') },
  { kind: 'risky-log-dir', needs: 'hosts', prevents: 'segments deleted under a broker by cleanup tools, log rotation or a reboot', run: fromDiagnosis('risky-log-dir') },
  { kind: 'disk-trend-full', needs: 'history', prevents: 'a log dir filling up and going offline with its partitions', run: storageTrend('disk-trend-full') },
  { kind: 'inode-trend-full', needs: 'history', prevents: 'a log dir out of inodes, unable to roll segments', run: storageTrend('inode-trend-full') },
  { kind: 'fd-mmap-headroom', needs: 'hosts', prevents: 'a broker exiting (and crash-looping) when it cannot open a segment', run: fdMmapHeadroom },
  { kind: 'broker-config-drift', needs: 'broker-configs', prevents: 'topics and brokers behaving differently depending on which broker created or leads them', run: brokerConfigDrift },
  { kind: 'topic-override-weaker', needs: 'broker-configs', prevents: 'a topic left outside the cluster-wide safety settings', run: topicOverrideWeaker },
  { kind: 'quorum-size-unsafe', needs: 'metadata', prevents: 'every metadata change stopping when one controller too many fails (a single voter, or an even count)', run: quorumSizeUnsafe },
  { kind: 'quorum-static-voters', needs: 'metadata', prevents: 'a failed controller replaceable only by editing every node\'s config and rolling the cluster', run: staticQuorumVoters },
];

export const PREVENTS: ReadonlyMap<FindingKind, string> = new Map(AUDIT_CHECKS.map((c) => [c.kind, c.prevents]));

/** Which checks could not run, said plainly. */
export function skippedAuditChecks(input: Pick<AuditInput, 'hostAccess' | 'brokerConfigs' | 'storageHistory'>): string[] {
  const out: string[] = [];
  const kinds = (needs: CheckSource) => AUDIT_CHECKS.filter((c) => c.needs === needs).map((c) => c.kind).join(', ');
  if (!input.hostAccess) out.push(`No host access for this cluster (e.g. Amazon MSK): these checks did not run: ${kinds('hosts')}, ${kinds('history')}.`);
  if (input.brokerConfigs === null) out.push(`No broker answered DescribeConfigs: these checks did not run: ${kinds('broker-configs')}.`);
  if (input.hostAccess && input.storageHistory === null) out.push(`Disk and inode trends: no trend yet (a one-shot run keeps no samples; the scheduled audit does): ${kinds('history')}.`);
  return out;
}

/** Every check over one input; each finding carries the failure it prevents. */
export function runAuditChecks(input: AuditInput): Finding[] {
  const out: Finding[] = [];
  for (const check of AUDIT_CHECKS) {
    if ((check.needs === 'hosts' || check.needs === 'history') && !input.hostAccess) continue;
    for (const f of check.run(input)) out.push({ ...f, prevents: check.prevents });
  }
  return out;
}

