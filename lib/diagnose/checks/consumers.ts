// What consumers lose or re-read: committed offsets (OffsetFetch) against log
// start and end (ListOffsets), and lag judged over samples. One view joins the
// latest sample once; one small rule per finding kind reads it. Every finding
// names the group's protocol (classic, or KIP-848's consumer protocol), state
// and member count, as kafka-consumer-groups.sh --describe --state shows them,
// and its topic-partitions. Share groups commit no offsets: never judged here.

import type { ClusterSnapshot, ConsumerSample, GroupState } from '../../kafka/types.ts';
import type { Evidence, Finding, TopicPartitionRef } from '../types.ts';
import { MAX_EVIDENCE_SAMPLES, makeFinding, plural } from '../finding.ts';
import { findingsOf, runChecks, viewOnce, type Check, type CheckInput } from './check.ts';
import { aggregateSample, evaluateLag, membersOf, worseStatus, type LagHistorySample, type LagPoint, type LagStatus } from '../lag-verdict.ts';
import { groupStateText, ownerText } from '../group-text.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'consumer-offset-below-log-start': true;
    'consumer-offset-above-log-end': true;
    'consumer-lag': true;
  }
}

export interface ConsumerPartition {
  topic: string;
  partition: number;
  committed: number;
  start: number | null;
  end: number | null;
  /** This partition's (committed, end) in every sample, oldest first; empty (one shared array) when it is not behind its end. */
  points: readonly LagPoint[];
}

export interface ConsumerGroupView {
  group: GroupState;
  partitions: ConsumerPartition[];
}

export interface ConsumerView {
  groups: ConsumerGroupView[];
  samples: readonly ConsumerSample[];
  /** Kept between runs (the bot): aggregates per group, oldest first. */
  history: readonly LagHistorySample[];
  snapshot: ClusterSnapshot;
}

/** Partitions numbered once, so the per-sample joins are array reads instead of string-keyed lookups. */
class PartitionIndex {
  private readonly byTopic = new Map<string, Map<number, number>>();
  size = 0;
  id(topic: string, partition: number, add: boolean): number {
    let m = this.byTopic.get(topic);
    if (!m) {
      if (!add) return -1;
      this.byTopic.set(topic, (m = new Map()));
    }
    let i = m.get(partition);
    if (i === undefined) {
      if (!add) return -1;
      m.set(partition, (i = this.size++));
    }
    return i;
  }
}

/** The series of every partition that is not behind its end: one array, not 500,000 empty ones on a fleet. */
const NO_POINTS: readonly LagPoint[] = Object.freeze([]);

export function consumerView(snapshot: ClusterSnapshot, history: readonly LagHistorySample[] = []): ConsumerView {
  const samples = snapshot.consumerSamples ?? [];
  const latest = samples[samples.length - 1];
  const view: ConsumerView = { groups: [], samples, history, snapshot };
  if (!latest) return view;
  const index = new PartitionIndex();
  for (const s of samples) for (const l of s.logOffsets) index.id(l.topic, l.partition, true);
  const column = () => new Float64Array(index.size).fill(NaN);
  const starts = column();
  for (const l of samples[0]!.logOffsets) if (l.start !== null) starts[index.id(l.topic, l.partition, false)] = l.start;
  const ends = samples.map((s) => {
    const e = column();
    for (const l of s.logOffsets) if (l.end !== null) e[index.id(l.topic, l.partition, false)] = l.end;
    return e;
  });
  const lastEnds = ends[ends.length - 1]!;
  // Earlier samples' commits per group, by partition number (only read for partitions that lag now).
  const earlier = samples.slice(0, -1).map((s) => new Map(s.groups.map((g) => [g.groupId, g])));
  const states = new Map(snapshot.groups.map((g) => [g.groupId, g]));
  for (const g of latest.groups) {
    const group = states.get(g.groupId);
    // Share groups acknowledge records instead of committing offsets: no position to judge.
    if (!group || group.groupType === 'share' || g.error !== null || g.offsets.length === 0) continue;
    let before: (Map<number, number> | null)[] | null = null;
    const partitions: ConsumerPartition[] = [];
    for (const o of g.offsets) {
      const i = index.id(o.topic, o.partition, false);
      const end = i < 0 || Number.isNaN(lastEnds[i]!) ? null : lastEnds[i]!;
      const start = i < 0 || Number.isNaN(starts[i]!) ? null : starts[i]!;
      let points: readonly LagPoint[] = NO_POINTS;
      if (end !== null && end > o.offset) {
        const series: LagPoint[] = [];
        points = series;
        // Only a partition behind its end can get a lag verdict: its series is built, the others' is not.
        before ??= earlier.map((m) => {
          const og = m.get(g.groupId);
          if (!og) return null;
          const byPartition = new Map<number, number>();
          for (const x of og.offsets) byPartition.set(index.id(x.topic, x.partition, false), x.offset);
          return byPartition;
        });
        before.forEach((m, si) => {
          const committed = m?.get(i);
          const e = ends[si]![i]!;
          if (committed !== undefined && !Number.isNaN(e)) series.push({ committed, end: e });
        });
        series.push({ committed: o.offset, end });
      }
      partitions.push({ topic: o.topic, partition: o.partition, committed: o.offset, start, end, points });
    }
    view.groups.push({ group, partitions });
  }
  return view;
}

const refs = (ps: readonly ConsumerPartition[]): TopicPartitionRef[] => ps.map((p) => ({ topic: p.topic, partition: p.partition }));
const tpList = (ps: readonly ConsumerPartition[]) => {
  const shown = ps.slice(0, 5).map((p) => `${p.topic}-${p.partition}`).join(', ');
  return ps.length > 5 ? `${shown}, … (+${ps.length - 5})` : shown;
};
const stateText = (g: GroupState) => groupStateText(g);
const positionEvidence = (g: GroupState, ps: readonly ConsumerPartition[], extra: (p: ConsumerPartition) => string): Evidence[] => [
  { label: 'group state', value: stateText(g), source: g.coordinator === null ? 'metadata' : `broker:${g.coordinator}` },
  ...ps.slice(0, MAX_EVIDENCE_SAMPLES).map((p) => {
    const owner = ownerText(g, p.topic, p.partition);
    return {
      label: `${p.topic}-${p.partition}`,
      value: `committed ${p.committed}, log start ${p.start ?? '?'}, log end ${p.end ?? '?'}${extra(p)}${owner ? `; ${owner}` : ''}`,
      source: 'offsets',
    };
  }),
];
const identity = (g: GroupState, ps: readonly ConsumerPartition[]) => [`group:${g.groupId}`, ...ps.map((p) => `${p.topic}-${p.partition}`)];

/** Retention deleted records before the group read them. */
function offsetBelowLogStart(view: ConsumerView): Finding[] {
  return view.groups.flatMap(({ group, partitions }) => {
    const hit = partitions.filter((p) => p.start !== null && p.committed < p.start);
    if (hit.length === 0) return [];
    const skipped = hit.reduce((n, p) => n + (p.start! - p.committed), 0);
    return [
      makeFinding({
        kind: 'consumer-offset-below-log-start',
        severity: 'error',
        title: `Group ${group.groupId} (${stateText(group)}) lost ${skipped} messages to retention on ${plural(hit.length, 'partition')}`,
        summary:
          `Group ${group.groupId} (${stateText(group)}) committed offsets that retention has already deleted on ${tpList(hit)}. ` +
          `${skipped} messages were never consumed; the group will jump per auto.offset.reset (earliest: to the log start, skipping them; latest: to the end).`,
        partitions: refs(hit),
        groups: [group.groupId],
        evidence: positionEvidence(group, hit, (p) => `, ${p.start! - p.committed} messages skipped`),
        identity: identity(group, hit),
        nextActions: [
          'Find why the group fell behind (stopped or slow consumers) before raising retention.ms on the topic.',
          'If the data matters, replay it from its source: it is gone from Kafka.',
        ],
      }),
    ];
  });
}

/** Truncation or an unclean election left the group's position past the log's end. */
function offsetAboveLogEnd(view: ConsumerView): Finding[] {
  return view.groups.flatMap(({ group, partitions }) => {
    const hit = partitions.filter((p) => p.end !== null && p.committed > p.end);
    if (hit.length === 0) return [];
    const gap = hit.reduce((n, p) => n + (p.committed - p.end!), 0);
    return [
      makeFinding({
        kind: 'consumer-offset-above-log-end',
        severity: 'error',
        title: `Group ${group.groupId} (${stateText(group)}) committed ${gap} offsets past the log end on ${plural(hit.length, 'partition')}`,
        summary:
          `Group ${group.groupId} (${stateText(group)}) committed beyond the current end of ${tpList(hit)}: the log was truncated (unclean election, leader override). ` +
          `The group resets per auto.offset.reset: with latest it skips every message written until the end passes its old position; with earliest it re-reads the whole log.`,
        partitions: refs(hit),
        groups: [group.groupId],
        evidence: positionEvidence(group, hit, (p) => `, gap ${p.committed - p.end!}`),
        identity: identity(group, hit),
        nextActions: [
          'Decide where the group should resume, then, with its consumers stopped, commit it at the log end: kafka-consumer-groups.sh --reset-offsets --to-latest --group G --topic T --execute.',
          'Messages produced since the truncation up to the old committed offset are otherwise silently skipped.',
        ],
      }),
    ];
  });
}

const LAG_SEVERITY = { STALLED: 'error', STOPPED: 'warning', LAGGING: 'warning' } as const;
const LAG_MEANING: Record<Exclude<LagStatus, 'OK'>, string> = {
  STALLED: 'members are present but the committed offset did not move while the log end did',
  STOPPED: 'no member is left and the committed offset does not move while messages wait',
  LAGGING: 'commits move but the lag grew at every sample',
};

/** Burrow-style verdict per group: the worst of its partitions over this run's samples and its aggregate over the kept history. */
function consumerLag(view: ConsumerView): Finding[] {
  // Only the kept history needs this run's aggregate.
  const current = view.samples.length > 0 && view.history.length > 0 ? aggregateSample(view.samples[view.samples.length - 1]!, membersOf(view.snapshot)) : null;
  return view.groups.flatMap(({ group, partitions }) => {
    const members = group.members ?? null;
    const verdicts = partitions.map((p) => ({ p, status: evaluateLag(p.points, members) }));
    let status = verdicts.reduce<LagStatus>((w, v) => worseStatus(w, v.status), 'OK');
    let worst = verdicts.filter((v) => v.status === status).map((v) => v.p);
    // The kept history judges the group as a whole: a longer window than this run's two samples.
    const now = current?.groups[group.groupId];
    if (now && view.history.length > 0) {
      const series = [...view.history.flatMap((h) => h.groups[group.groupId] ?? []), now];
      const fromHistory = evaluateLag(series, members);
      if (fromHistory !== status && worseStatus(status, fromHistory) === fromHistory) {
        status = fromHistory;
        worst = partitions.filter((p) => p.end !== null && p.end > p.committed);
      }
    }
    if (status === 'OK' || worst.length === 0) return [];
    const lagOf = (p: ConsumerPartition) => (p.end ?? p.committed) - p.committed;
    const totalLag = partitions.reduce((n, p) => n + Math.max(0, lagOf(p)), 0);
    const windowMs = view.history.length > 0 ? (view.samples.at(-1)?.at ?? 0) - view.history[0]!.at : (view.samples.at(-1)?.at ?? 0) - (view.samples[0]?.at ?? 0);
    return [
      makeFinding({
        kind: 'consumer-lag',
        severity: LAG_SEVERITY[status],
        title: `Group ${group.groupId} (${stateText(group)}) ${status}: lag ${totalLag} on ${plural(worst.length, 'partition')}`,
        summary: `${status}: ${LAG_MEANING[status]} (${stateText(group)}; judged over ${Math.round(windowMs / 1000)} s of samples). Partitions: ${tpList(worst)}.`,
        partitions: refs(worst),
        groups: [group.groupId],
        evidence: [
          { label: 'status', value: status, source: 'offsets' },
          ...positionEvidence(group, worst, (p) => `, lag ${lagOf(p)}${p.points.length > 1 ? ` (samples: ${p.points.map((x) => `${x.committed}/${x.end}`).join(' → ')})` : ''}`),
        ],
        identity: [`group:${group.groupId}`, `status:${status}`],
        nextActions:
          status === 'STALLED'
            ? ['Look at the consumers of this group: a stuck poll loop, a poison message, or commits failing (check the client logs).', 'Restarting one consumer triggers a rebalance that often unsticks a partition; find the cause first.']
            : status === 'STOPPED'
              ? ['Start the group\'s consumers, or delete the group if it is abandoned (kafka-consumer-groups.sh --delete --group G).', 'Watch retention: a stopped group loses data once its offset falls below the log start.']
              : ['Scale the consumers (up to one per partition) or find the slow processing step.', 'Check that the lag is not concentrated on one hot partition.'],
      }),
    ];
  });
}

const consumerViewOf = viewOnce(({ snapshot, lagHistory }) => consumerView(snapshot, lagHistory));
const fromView =
  (rule: (view: ConsumerView) => Finding[]) =>
  (input: CheckInput): Finding[] =>
    rule(consumerViewOf(input));

/** One check per finding kind; all read the one joined view of the consumer samples. */
export const CONSUMER_CHECKS: readonly Check[] = [
  { kinds: ['consumer-offset-below-log-start'], needs: ['metadata'], detect: fromView(offsetBelowLogStart) },
  { kinds: ['consumer-offset-above-log-end'], needs: ['metadata'], detect: fromView(offsetAboveLogEnd) },
  { kinds: ['consumer-lag'], needs: ['metadata'], detect: fromView(consumerLag) },
];

export function detectConsumerFindings(snapshot: ClusterSnapshot, history: readonly LagHistorySample[] = []): Finding[] {
  return findingsOf(runChecks(CONSUMER_CHECKS, { snapshot, probes: [], lagHistory: history }));
}
