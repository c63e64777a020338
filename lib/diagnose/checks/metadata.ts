// Checks over the Admin API snapshot alone: they work on every cluster,
// Amazon MSK included. One pass over all partitions sorts each problem
// partition into a bucket keyed by the brokers behind it, so 300 offline
// partitions behind one dead broker become one finding naming that broker.

import type { ClusterSnapshot, PartitionState, TopicState } from '../../kafka/types.ts';
import type { HostProbeOutcome } from '../../hosts/types.ts';
import type { Evidence, Finding, OperationOffer, TopicPartitionRef } from '../types.ts';
import {
  MAX_EVIDENCE_SAMPLES,
  brokerList,
  describePartition,
  makeFinding,
  plural,
  topicCounts,
} from '../finding.ts';
import { isUnavailable, isUnderReplicated, minIsrOf, replicationFactor } from '../partition-filters.ts';
import { offlineElrNote } from '../elr-notes.ts';
import { returnElectionText } from '../../operations/elr.ts';
import { unreachableBrokers } from './unreachable.ts';
import { viewOnce, type Check, type CheckInput } from './check.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'offline-partition': true;
    'under-min-isr': true;
    'under-replicated': true;
    'isr-single-replica': true;
    'broker-unreachable': true;
  }
}

export interface Bucket {
  brokers: number[];
  partitions: TopicPartitionRef[];
  /** The partitions' states (ELR notes read them). */
  states: PartitionState[];
  perTopic: Map<string, number>;
  samples: string[];
  /** Topics in the bucket with unclean.leader.election.enable=true. */
  uncleanTopics: Set<string>;
  minIsrByTopic: Map<string, number>;
}

function bucketFor(map: Map<string, Bucket>, brokers: number[]): Bucket {
  const key = brokers.join(',');
  let b = map.get(key);
  if (!b) {
    b = { brokers, partitions: [], states: [], perTopic: new Map(), samples: [], uncleanTopics: new Set(), minIsrByTopic: new Map() };
    map.set(key, b);
  }
  return b;
}

function add(bucket: Bucket, topic: TopicState, p: PartitionState): void {
  bucket.partitions.push({ topic: topic.name, partition: p.partition });
  bucket.states.push(p);
  bucket.perTopic.set(topic.name, (bucket.perTopic.get(topic.name) ?? 0) + 1);
  if (bucket.samples.length < MAX_EVIDENCE_SAMPLES) bucket.samples.push(describePartition(topic.name, p));
  if (topic.config?.uncleanLeaderElectionEnable) bucket.uncleanTopics.add(topic.name);
  bucket.minIsrByTopic.set(topic.name, minIsrOf(topic));
}

function notIn(ids: readonly number[], set: { has(id: number): boolean }): number[] {
  const out: number[] = [];
  for (const id of ids) if (!set.has(id)) out.push(id);
  return out.sort((a, b) => a - b);
}

const NONE: number[] = [];

/** Replicas missing from the ISR, not counting ones a reassignment is still adding. */
function outOfSyncReplicas(p: PartitionState): number[] {
  const out: number[] = [];
  for (const r of p.replicas) if (!p.isr.includes(r) && !p.addingReplicas?.includes(r)) out.push(r);
  return out.sort((a, b) => a - b);
}

function bucketEvidence(b: Bucket): Evidence[] {
  const ev: Evidence[] = [{ label: 'partitions per topic', value: topicCounts(b.perTopic), source: 'metadata' }];
  for (const s of b.samples) ev.push({ label: 'partition', value: s, source: 'metadata' });
  return ev;
}

function minIsrEvidence(b: Bucket): Evidence {
  const values = [...b.minIsrByTopic].slice(0, MAX_EVIDENCE_SAMPLES).map(([t, n]) => `${t}=${n}`);
  if (b.minIsrByTopic.size > MAX_EVIDENCE_SAMPLES) values.push(`… (+${b.minIsrByTopic.size - MAX_EVIDENCE_SAMPLES} topics)`);
  return { label: 'min.insync.replicas', value: values.join(', '), source: 'topic configs' };
}

/**
 * Down brokers whose host probe answered and found no partition data at all
 * in their log dirs (wiped, reformatted, disk replaced): bringing them back
 * restores nothing, and on KRaft a returning replica of the last ISR can even
 * be elected with its empty log so that the live replicas truncate to it
 * (incident 1). Maps broker id → evidence.
 */
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function brokersWithoutData(deadBrokers: Iterable<number>, probes: readonly HostProbeOutcome[]): Map<number, Evidence> {
  const out = new Map<number, Evidence>();
  for (const id of deadBrokers) {
    const o = probes.find((x) => x.brokerId === id);
    if (!o?.ok || o.report.logDirs.length === 0) continue;
    const dirs = o.report.logDirs;
    if (dirs.every((d) => !d.exists || d.partitionDirCount === 0)) {
      out.set(id, {
        label: 'log dirs on the host',
        value: dirs.map((d) => `${d.path}: ${d.exists ? `${d.partitionDirCount} partition dirs` : 'missing'}`).join('; '),
        source: `broker:${id}`,
      });
    }
  }
  return out;
}

/** One pass over every partition, classified; the rules below read it. */
export interface MetadataView {
  snapshot: ClusterSnapshot;
  probes: readonly HostProbeOutcome[];
  live: Set<number>;
  offline: Map<string, Bucket>;
  underMinIsr: Map<string, Bucket>;
  underReplicated: Map<string, Bucket>;
  singleIsr: Map<string, Bucket>;
  rfOne: Map<string, Bucket>;
  /** Brokers that hold replicas but are not in the live broker list, with how many replicas they hold. */
  replicasOnDeadBrokers: Map<number, number>;
  offlineTotal: number;
}

function classifyPartitions(snapshot: ClusterSnapshot, probes: readonly HostProbeOutcome[]): MetadataView {
  const live = new Set(snapshot.brokers.map((b) => b.id));
  const offline = new Map<string, Bucket>();
  const underMinIsr = new Map<string, Bucket>();
  const underReplicated = new Map<string, Bucket>();
  const singleIsr = new Map<string, Bucket>();
  const rfOne = new Map<string, Bucket>();
  /** Brokers that hold replicas but are not in the live broker list, with how many replicas they hold. */
  const replicasOnDeadBrokers = new Map<number, number>();
  let offlineTotal = 0;

  for (const topic of snapshot.topics) {
    const minIsr = minIsrOf(topic);
    for (const p of topic.partitions) {
      const replicas = p.replicas;
      for (let i = 0; i < replicas.length; i++) {
        const r = replicas[i]!;
        if (!live.has(r)) replicasOnDeadBrokers.set(r, (replicasOnDeadBrokers.get(r) ?? 0) + 1);
      }
      if (replicationFactor(p) === 1) add(bucketFor(rfOne, []), topic, p);

      if (isUnavailable(p, live)) {
        offlineTotal++;
        // Group by the replica holders that are down: that is the broker to bring back.
        add(bucketFor(offline, notIn(replicas, live)), topic, p);
        continue;
      }
      // Partitions with a live leader: the others are all in the offline finding already.
      const outOfSync = p.isr.length < replicas.length ? outOfSyncReplicas(p) : NONE;
      if (p.isr.length < minIsr) add(bucketFor(underMinIsr, outOfSync), topic, p);
      else if (isUnderReplicated(p)) add(bucketFor(underReplicated, outOfSync), topic, p);
      if (p.isr.length === 1 && replicationFactor(p) > 1) add(bucketFor(singleIsr, [p.isr[0]!]), topic, p);
    }
  }
  return { snapshot, probes, live, offline, underMinIsr, underReplicated, singleIsr, rfOne, replicasOnDeadBrokers, offlineTotal };
}

/** The button of an offline finding: a leader override of its first partition. */
function leaderOverrideOffer(f: Finding): OperationOffer | undefined {
  const first = f.affected.partitions[0];
  if (!first) return undefined;
  return { label: `Plan leader override ${first.topic}-${first.partition}`, request: { kind: 'leader-override', topic: first.topic, partition: first.partition } };
}

/** Partitions without a live leader, grouped by the down brokers that hold them. */
function offlinePartitions({ probes, offline, replicasOnDeadBrokers, live }: MetadataView): Finding[] {
  const findings: Finding[] = [];
  const dataless = brokersWithoutData(replicasOnDeadBrokers.keys(), probes);
  for (const b of offline.values()) {
    const who =
      b.brokers.length > 0
        ? `${brokerList(b.brokers)} (holding their replicas) ${b.brokers.length === 1 ? 'is' : 'are'} down`
        : 'all replicas are live but none leads';
    const elr = offlineElrNote(b.states, live);
    const uncleanNote =
      b.uncleanTopics.size > 0
        ? ` ${plural(b.uncleanTopics.size, 'topic')} allow unclean election, so a live out-of-sync replica may be elected with data loss.`
        : elr.lastKnownLeaderElection
          ? ' Unclean leader election is off for these topics, yet with eligible leader replicas on the controller elects the last known leader when it returns, whatever its log holds.'
          : ' Unclean leader election is off for these topics, so only a replica from the last ISR can lead without an explicit unclean election.';
    const empty = b.brokers.filter((id) => dataless.has(id));
    const emptyIsr = b.states.some((p) => p.isr.length === 0);
    const comeBackNote =
      empty.length > 0
        ? ` ${capitalize(brokerList(empty))} ${empty.length === 1 ? 'has' : 'have'} no partition data left on disk (wiped or lost): starting ${empty.length === 1 ? 'it' : 'them'} restores nothing, and if ${empty.length === 1 ? 'it' : 'one'} led last, ${returnElectionText(emptyIsr)}, and the live replicas truncate to its empty log.`
        : b.brokers.length > 0
          ? ` Every one has a replica on ${brokerList(b.brokers)}, which is not in the live broker list; bringing it back with its data is the data-preserving fix.`
          : '';
    findings.push(
      makeFinding({
        kind: 'offline-partition',
        severity: 'critical',
        title: `${plural(b.partitions.length, 'partition')} offline: ${who}`,
        summary:
          `${plural(b.partitions.length, 'partition')} in ${plural(b.perTopic.size, 'topic')} have no live leader: producers get LEADER_NOT_AVAILABLE / NOT_LEADER and consumers stall on them.` +
          comeBackNote +
          elr.summary +
          uncleanNote,
        partitions: b.partitions,
        brokers: b.brokers,
        evidence: [...bucketEvidence(b), ...elr.evidence, ...empty.map((id) => dataless.get(id)!)],
        identity: b.brokers.length > 0 ? b.brokers.map((id) => `broker:${id}`) : ['no-dead-replica'],
        nextActions:
          empty.length > 0
            ? [
                `Do not start ${brokerList(empty)} yet: first plan a leader override (/kafka elect-leader <topic> <partition>) to put the live replica with the most data in charge, then start ${empty.length === 1 ? 'it' : 'them'} to re-replicate.`,
                'Compare what each live replica holds (the leader-override plan shows it) before choosing.',
                'Do not wipe or delete the log dir of any replica that still holds data.',
              ]
            : [
                ...(b.brokers.length > 0 ? [`Find out why ${brokerList(b.brokers)} is down (process, host, systemd journal) and start it; then re-run diagnose.`] : []),
                'If a broker cannot come back, run can-restart / the leader-override plan to choose which surviving replica leads, with its data-loss estimate.',
                'Do not wipe or delete the log dir of the last in-sync replica.',
              ],
      }),
    );
  }
  return findings;
}

/** Partitions whose acks=all writes fail. */
function underMinIsrPartitions({ underMinIsr, offlineTotal }: MetadataView): Finding[] {
  const findings: Finding[] = [];
  for (const b of underMinIsr.values()) {
    findings.push(
      makeFinding({
        kind: 'under-min-isr',
        severity: 'error',
        title: `${plural(b.partitions.length, 'partition')} below min.insync.replicas` + (b.brokers.length ? ` (out of sync: ${brokerList(b.brokers)})` : ''),
        summary:
          `${plural(b.partitions.length, 'partition')} in ${plural(b.perTopic.size, 'topic')} have fewer in-sync replicas than min.insync.replicas: producers using acks=all get NOT_ENOUGH_REPLICAS and their writes fail.` +
          (offlineTotal > 0 ? ` (${plural(offlineTotal, 'offline partition')} also count as under-min-ISR for kafka-topics.sh; they are in the offline-partition finding.)` : ''),
        partitions: b.partitions,
        brokers: b.brokers,
        evidence: [minIsrEvidence(b), ...bucketEvidence(b)],
        identity: ['out-of-sync:' + b.brokers.join(',')],
        nextActions: [
          b.brokers.length ? `Check ${brokerList(b.brokers)}: is it live, catching up (replica lag), or stuck?` : 'Check the replicas outside the ISR.',
          'Do not restart any broker that is in the ISR of these partitions until they are back at min.insync.replicas (can-restart checks this).',
        ],
      }),
    );
  }
  return findings;
}

/** Partitions with reduced redundancy that still take writes. */
function underReplicatedPartitions({ underReplicated }: MetadataView): Finding[] {
  const findings: Finding[] = [];
  for (const b of underReplicated.values()) {
    findings.push(
      makeFinding({
        kind: 'under-replicated',
        severity: 'warning',
        title: `${plural(b.partitions.length, 'partition')} under-replicated` + (b.brokers.length ? ` (out of sync: ${brokerList(b.brokers)})` : ''),
        summary: `${plural(b.partitions.length, 'partition')} in ${plural(b.perTopic.size, 'topic')} have fewer in-sync replicas than their replication factor but still meet min.insync.replicas. Redundancy is reduced: one more failure may stop writes or take them offline.`,
        partitions: b.partitions,
        brokers: b.brokers,
        evidence: bucketEvidence(b),
        identity: ['out-of-sync:' + b.brokers.join(',')],
        nextActions: [
          b.brokers.length ? `Check that ${brokerList(b.brokers)} is live and replicating (ReplicaFetcher errors, disk, network).` : 'Check the replicas outside the ISR.',
          'Avoid restarting brokers in these ISRs until replication catches up.',
        ],
      }),
    );
  }
  return findings;
}

/** Partitions one failure away from offline. */
function singleInSyncReplica({ singleIsr }: MetadataView): Finding[] {
  const findings: Finding[] = [];
  for (const b of singleIsr.values()) {
    const holder = b.brokers[0]!;
    const allUncleanOff = b.uncleanTopics.size === 0;
    findings.push(
      makeFinding({
        kind: 'isr-single-replica',
        // Incident 1: ISR of one with unclean election off is one failure away from an
        // offline partition whose only way back loses data. That deserves more than a warning.
        severity: allUncleanOff ? 'error' : 'warning',
        title: `${plural(b.partitions.length, 'partition')} rely on broker ${holder} alone (ISR of one)`,
        summary:
          `${plural(b.partitions.length, 'partition')} in ${plural(b.perTopic.size, 'topic')} have replicas elsewhere but only broker ${holder} in sync. If broker ${holder} stops (or is killed), these partitions go offline` +
          (allUncleanOff ? ' and, with unclean leader election off, stay offline until it returns or someone forces an unclean election that loses data.' : '.'),
        partitions: b.partitions,
        brokers: [holder],
        evidence: bucketEvidence(b),
        identity: [`isr-holder:${holder}`],
        nextActions: [
          `Do not stop, restart or kill broker ${holder} now (can-restart ${holder} will say no).`,
          'Find out why the followers dropped out of the ISR (lag, fetcher errors, down broker) and fix that first.',
        ],
      }),
    );
  }
  return findings;
}

/** The one classified pass over every partition, shared by the checks that read it (replication-factor-one.ts too). */
export const metadataView = viewOnce(({ snapshot, probes }) => classifyPartitions(snapshot, probes));
const fromView =
  (rule: (view: MetadataView) => Finding[]) =>
  (input: CheckInput): Finding[] =>
    rule(metadataView(input));

/** One check per finding kind, in report order; all read the one classified view. */
export const METADATA_CHECKS: readonly Check[] = [
  // The host probes tell a down broker whose disk was wiped from one that comes back with its data.
  { kinds: ['offline-partition'], needs: ['metadata'], uses: { hosts: 'log dirs of down brokers' }, detect: fromView(offlinePartitions), offer: leaderOverrideOffer },
  { kinds: ['under-min-isr'], needs: ['metadata'], detect: fromView(underMinIsrPartitions) },
  { kinds: ['under-replicated'], needs: ['metadata'], detect: fromView(underReplicatedPartitions) },
  { kinds: ['isr-single-replica'], needs: ['metadata'], detect: fromView(singleInSyncReplica) },
  { kinds: ['broker-unreachable'], needs: ['metadata'], detect: fromView(unreachableBrokers) },
];
