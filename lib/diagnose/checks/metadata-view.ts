// The one classified pass over every partition that the metadata checks read
// (offline-partition.ts, under-min-isr.ts, under-replicated.ts,
// isr-single-replica.ts, broker-unreachable.ts, replication-factor-one.ts):
// each problem partition sorted into a bucket keyed by the brokers behind it,
// so 300 offline partitions behind one dead broker become one finding naming
// that broker. Helpers only: no check lives here. Every cluster, Amazon MSK included.

import type { ClusterSnapshot, PartitionState, TopicState } from '../../kafka/types.ts';
import type { HostProbeOutcome } from '../../hosts/types.ts';
import type { Evidence, Finding, TopicPartitionRef } from '../types.ts';
import { MAX_EVIDENCE_SAMPLES, describePartition, topicCounts } from '../finding.ts';
import { isUnavailable, isUnderReplicated, minIsrOf, replicationFactor } from '../partition-filters.ts';
import { viewOnce, type CheckInput } from './check.ts';

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

export function bucketEvidence(b: Bucket): Evidence[] {
  const ev: Evidence[] = [{ label: 'partitions per topic', value: topicCounts(b.perTopic), source: 'metadata' }];
  for (const s of b.samples) ev.push({ label: 'partition', value: s, source: 'metadata' });
  return ev;
}

export function minIsrEvidence(b: Bucket): Evidence {
  const values = [...b.minIsrByTopic].slice(0, MAX_EVIDENCE_SAMPLES).map(([t, n]) => `${t}=${n}`);
  if (b.minIsrByTopic.size > MAX_EVIDENCE_SAMPLES) values.push(`… (+${b.minIsrByTopic.size - MAX_EVIDENCE_SAMPLES} topics)`);
  return { label: 'min.insync.replicas', value: values.join(', '), source: 'topic configs' };
}

export const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * Down brokers whose host probe answered and found no partition data at all
 * in their log dirs (wiped, reformatted, disk replaced): bringing them back
 * restores nothing, and on KRaft a returning replica of the last ISR can even
 * be elected with its empty log so that the live replicas truncate to it
 * (incident 1). Maps broker id → evidence.
 */
export function brokersWithoutData(deadBrokers: Iterable<number>, probes: readonly HostProbeOutcome[]): Map<number, Evidence> {
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

/** The one classified pass over every partition, shared by the checks that read it (replication-factor-one.ts too). */
export const metadataView = viewOnce(({ snapshot, probes }) => classifyPartitions(snapshot, probes));

/** A check's detect over the one classified view. */
export const fromView =
  (rule: (view: MetadataView) => Finding[]) =>
  (input: CheckInput): Finding[] =>
    rule(metadataView(input));
