// Incident 2: consumer groups that cannot consume because their coordinator
// has not finished loading the group's __consumer_offsets partition. The
// signals come from three places and are joined on the offsets partition and
// its leader: groups answering DescribeGroups with 14/15/16, brokers answering
// ListGroups with COORDINATOR_LOAD_IN_PROGRESS (4.x lists nothing while any
// partition loads), and the host probe's "load started, never finished" lines.

import type { ClusterSnapshot } from '../../kafka/types.ts';
import { CONSUMER_OFFSETS_TOPIC } from '../../kafka/group-partition.ts';
import type { HostProbeOutcome, ProbeReport } from '../../hosts/types.ts';
import type { Evidence, Finding } from '../types.ts';
import { MAX_EVIDENCE_SAMPLES, plural } from '../finding.ts';
import { allBeforeProcessStart } from './host-report.ts';
import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'coordinator-loading': true;
  }
}

/** COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR. */
export const COORDINATOR_ERROR_CODES: ReadonlySet<number> = new Set([14, 15, 16]);
export const LOAD_IN_PROGRESS = 14;

interface CoordinatorBucket {
  /** Broker leading the offsets partitions (the coordinator), or null when the partition has no leader. */
  broker: number | null;
  offsetsPartitions: Set<number>;
  groups: Set<string>;
  evidence: Evidence[];
}

/** What one host's probe says: offsets load errors of the running process, and loads its leader started and did not finish. */
function addProbeEvidence(brokerId: number, report: ProbeReport, leaderOf: ReadonlyMap<number, number>, bucket: (broker: number | null) => CoordinatorBucket): void {
  // "Failed to load metadata from __consumer_offsets-N": only the running process's failures matter.
  const loadErrors = report.logs.consumerOffsetsLoadErrors;
  if (loadErrors.length > 0 && !allBeforeProcessStart(loadErrors, report.process.startedAt)) {
    const b = bucket(brokerId);
    for (const line of loadErrors.slice(-3)) {
      b.evidence.push({ label: 'offsets load error', value: line, source: `broker:${brokerId}` });
      const m = /__consumer_offsets-(\d+)/.exec(line);
      if (m) b.offsetsPartitions.add(Number(m[1]));
    }
  }
  for (const cp of report.consumerOffsets) {
    if (!cp.loading) continue;
    // Only the leader loads a partition: a follower's stale start line is not a stuck coordinator.
    const leader = leaderOf.get(cp.partition);
    if (leader !== undefined && leader !== brokerId) continue;
    const b = bucket(brokerId);
    b.offsetsPartitions.add(cp.partition);
    b.evidence.push({
      label: 'load started, not finished',
      value: cp.lastLoadStart ?? `${CONSUMER_OFFSETS_TOPIC}-${cp.partition} loading`,
      source: `broker:${brokerId}`,
    });
    b.evidence.push({ label: `${CONSUMER_OFFSETS_TOPIC}-${cp.partition} size`, value: `${cp.segments} segments, ${cp.bytes} bytes`, source: `broker:${brokerId}` });
  }
}

/** Coordinators not serving, bucketed by the broker that leads their offsets partitions, with the evidence from each source. */
function coordinatorBuckets({ snapshot, probes }: CheckInput): CoordinatorBucket[] {
  const offsetsTopic = snapshot.topics.find((t) => t.name === CONSUMER_OFFSETS_TOPIC);
  const leaderOf = new Map<number, number>();
  for (const p of offsetsTopic?.partitions ?? []) leaderOf.set(p.partition, p.leader);

  const buckets = new Map<string, CoordinatorBucket>();
  const bucket = (broker: number | null): CoordinatorBucket => {
    const key = String(broker);
    let b = buckets.get(key);
    if (!b) buckets.set(key, (b = { broker, offsetsPartitions: new Set(), groups: new Set(), evidence: [] }));
    return b;
  };

  for (const g of snapshot.groups) {
    if (!g.error || !COORDINATOR_ERROR_CODES.has(g.error.code)) continue;
    const leader = leaderOf.get(g.offsetsPartition);
    const broker = leader !== undefined && leader >= 0 ? leader : g.coordinator;
    const b = bucket(broker);
    b.groups.add(g.groupId);
    b.offsetsPartitions.add(g.offsetsPartition);
    if (b.evidence.length < MAX_EVIDENCE_SAMPLES) {
      b.evidence.push({
        label: 'describe group',
        value: `${g.groupId} → ${CONSUMER_OFFSETS_TOPIC}-${g.offsetsPartition}: ${g.error.type} (${g.error.code})`,
        source: broker === null ? 'metadata' : `broker:${broker}`,
      });
    }
  }

  for (const e of snapshot.coordinatorErrors ?? []) {
    if (!COORDINATOR_ERROR_CODES.has(e.code)) continue;
    bucket(e.brokerId).evidence.push({ label: 'list groups', value: `${e.type} (${e.code})`, source: `broker:${e.brokerId}` });
  }

  for (const o of probes) if (o.ok) addProbeEvidence(o.brokerId, o.report, leaderOf, bucket);
  return [...buckets.values()];
}

/** What the renderer words: the coordinator (null: the offsets partition has no leader), its offsets partitions and groups, sorted. */
interface Facts {
  broker: number | null;
  parts: number[];
  groups: string[];
}

function detect(input: CheckInput): Detected<Facts>[] {
  return coordinatorBuckets(input).map((b) => {
    const parts = [...b.offsetsPartitions].sort((x, y) => x - y);
    const groups = [...b.groups].sort();
    return {
      finding: {
        kind: 'coordinator-loading',
        severity: 'error',
        partitions: parts.map((p) => ({ topic: CONSUMER_OFFSETS_TOPIC, partition: p })),
        brokers: b.broker === null ? [] : [b.broker],
        groups,
        evidence: b.evidence,
        identity: [`coordinator:${b.broker ?? 'none'}`, ...parts.map((p) => `offsets:${p}`)],
      },
      facts: { broker: b.broker, parts, groups },
    };
  });
}

function render({ broker, parts, groups }: Facts): FindingProse {
  const who = broker === null ? 'no coordinator (offsets partition has no leader)' : `broker ${broker}`;
  const partList = parts.length ? parts.map((p) => `${CONSUMER_OFFSETS_TOPIC}-${p}`).join(', ') : 'its __consumer_offsets partitions';
  return {
    title: `Group coordinator on ${who} not serving` + (groups.length ? `: ${plural(groups.length, 'group')} cannot consume` : parts.length ? `: loading ${plural(parts.length, 'offsets partition')}` : ''),
    summary:
      `${broker === null ? 'The' : `Broker ${broker}`} coordinator answers "load in progress" / "not coordinator" for ${partList}. ` +
      'Until the load finishes, member joins, heartbeats and offset commits/fetches for those groups fail and consumers stop. ' +
      'A load that never finishes usually means an oversized, uncompacted partition (check log-cleaner and segment counts).',
    nextActions: [
      broker === null ? 'Bring the offsets partition back online first (see offline-partition).' : `Watch broker ${broker}'s log for "Finished loading" of ${partList}.`,
      'Check __consumer_offsets segment counts and log-cleaner health on the leader.',
      'Never restart every replica holder of a __consumer_offsets partition at once: each restart restarts the load.',
    ],
  };
}

/** The findings of one snapshot and its probes, worded. */
const coordinatorLoading = (input: CheckInput): Finding[] => detect(input).map((d) => renderFinding(d, render));

/** Metadata alone finds a loading coordinator; the host log lines add the partitions still loading and why. */
export const coordinatorLoadingCheck: Check = { kinds: ['coordinator-loading'], needs: ['metadata'], uses: { hosts: 'host log lines' }, detect: coordinatorLoading };

export function detectCoordinatorLoading(snapshot: ClusterSnapshot, probes: readonly HostProbeOutcome[]): Finding[] {
  return coordinatorLoading({ snapshot, probes, lagHistory: [] });
}
