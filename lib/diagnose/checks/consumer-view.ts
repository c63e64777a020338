// What consumers lose or re-read: committed offsets (OffsetFetch) against log
// start and end (ListOffsets), and lag judged over samples. One view joins the
// latest sample once; one small check per finding kind reads it
// (consumer-offset-below-log-start.ts, consumer-offset-above-log-end.ts,
// consumer-lag.ts). Every finding names the group's protocol (classic, or
// KIP-848's consumer protocol), state and member count, as
// kafka-consumer-groups.sh --describe --state shows them, and its
// topic-partitions. Share groups commit no offsets: never judged here.
// Helpers only: no check lives here.

import type { ClusterSnapshot, ConsumerSample, GroupState } from '../../kafka/types.ts';
import type { Evidence, Finding, TopicPartitionRef } from '../types.ts';
import { MAX_EVIDENCE_SAMPLES } from '../finding.ts';
import { viewOnce, type CheckInput } from './check.ts';
import type { LagHistorySample, LagPoint } from '../lag-verdict.ts';
import { groupStateText, ownerText } from '../group-text.ts';

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

export const refs = (ps: readonly ConsumerPartition[]): TopicPartitionRef[] => ps.map((p) => ({ topic: p.topic, partition: p.partition }));

export const tpList = (ps: readonly ConsumerPartition[]) => {
  const shown = ps.slice(0, 5).map((p) => `${p.topic}-${p.partition}`).join(', ');
  return ps.length > 5 ? `${shown}, … (+${ps.length - 5})` : shown;
};

export const stateText = (g: GroupState) => groupStateText(g);

export const positionEvidence = (g: GroupState, ps: readonly ConsumerPartition[], extra: (p: ConsumerPartition) => string): Evidence[] => [
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

export const identity = (g: GroupState, ps: readonly ConsumerPartition[]) => [`group:${g.groupId}`, ...ps.map((p) => `${p.topic}-${p.partition}`)];

const consumerViewOf = viewOnce(({ snapshot, lagHistory }) => consumerView(snapshot, lagHistory));

export const fromView =
  (rule: (view: ConsumerView) => Finding[]) =>
  (input: CheckInput): Finding[] =>
    rule(consumerViewOf(input));
