// Burrow-style lag evaluation: a verdict over a window of samples, never one
// number. Pure; the samples come from the snapshot (two a short window apart
// when there is no history) and, in the bot, from the state store.

import type { ClusterSnapshot, ConsumerSample } from '../kafka/types.ts';

export const LAG_STATUSES = ['STALLED', 'STOPPED', 'LAGGING', 'OK'] as const;
export type LagStatus = (typeof LAG_STATUSES)[number];

/** Worst first. */
const RANK: Record<LagStatus, number> = { STALLED: 0, STOPPED: 1, LAGGING: 2, OK: 3 };
export const worseStatus = (a: LagStatus, b: LagStatus): LagStatus => (RANK[a] <= RANK[b] ? a : b);

export interface LagPoint {
  committed: number;
  end: number;
}

/**
 * STALLED: committed offset unchanged while the end moves, members present.
 * STOPPED: committed offset unchanged, behind the end, no members.
 * LAGGING: commits move but the lag grows at every step.
 * OK otherwise (including a single sample: no verdict without a window).
 */
export function evaluateLag(points: readonly LagPoint[], members: number | null): LagStatus {
  if (points.length < 2) return 'OK';
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const lastLag = last.end - last.committed;
  if (lastLag <= 0) return 'OK';
  const committedUnchanged = points.every((p) => p.committed === first.committed);
  if (committedUnchanged) {
    if (members === 0) return 'STOPPED';
    if (last.end > first.end) return 'STALLED';
    return 'OK';
  }
  let growing = true;
  for (let i = 1; i < points.length; i++) if (points[i]!.end - points[i]!.committed <= points[i - 1]!.end - points[i - 1]!.committed) growing = false;
  return growing ? 'LAGGING' : 'OK';
}

/** A group's whole position at one moment: what the bot keeps between runs (small enough for one DynamoDB item). */
export interface LagHistorySample {
  at: number;
  groups: Record<string, { committed: number; end: number; members: number | null }>;
}

/** Sums of committed and end offsets over the partitions where both are known, per group. */
export function aggregateSample(sample: ConsumerSample, members: ReadonlyMap<string, number | null>): LagHistorySample {
  // Topic, then partition: no key string built per partition (a fleet's sample holds 500,000 offsets).
  const ends = new Map<string, Map<number, number | null>>();
  for (const l of sample.logOffsets) {
    let byPartition = ends.get(l.topic);
    if (!byPartition) ends.set(l.topic, (byPartition = new Map()));
    byPartition.set(l.partition, l.end);
  }
  const groups: LagHistorySample['groups'] = {};
  for (const g of sample.groups) {
    if (g.error !== null || g.offsets.length === 0) continue;
    let committed = 0;
    let end = 0;
    for (const o of g.offsets) {
      const e = ends.get(o.topic)?.get(o.partition);
      if (e === null || e === undefined) continue;
      committed += o.offset;
      end += e;
    }
    groups[g.groupId] = { committed, end, members: members.get(g.groupId) ?? null };
  }
  return { at: sample.at, groups };
}

export const membersOf = (snapshot: ClusterSnapshot): Map<string, number | null> => new Map(snapshot.groups.map((g) => [g.groupId, g.members ?? null]));

export interface LagHistoryPolicy {
  /** Samples older than this are dropped. */
  maxAgeMs: number;
  maxSamples: number;
  /** History is enough to judge lag without a second sample when it holds a sample at least this old. */
  minSpanMs: number;
}

export const DEFAULT_LAG_HISTORY: LagHistoryPolicy = { maxAgeMs: 30 * 60_000, maxSamples: 10, minSpanMs: 10_000 };

export function recentHistory(history: readonly LagHistorySample[], nowMs: number, policy: LagHistoryPolicy = DEFAULT_LAG_HISTORY): LagHistorySample[] {
  return history.filter((s) => nowMs - s.at <= policy.maxAgeMs && s.at <= nowMs).sort((a, b) => a.at - b.at).slice(-policy.maxSamples);
}

/** Does the kept history already give a window (so no second sample is needed now)? */
export function historyGivesWindow(history: readonly LagHistorySample[], nowMs: number, policy: LagHistoryPolicy = DEFAULT_LAG_HISTORY): boolean {
  return recentHistory(history, nowMs, policy).some((s) => nowMs - s.at >= policy.minSpanMs);
}

/** History with this run's samples appended, trimmed to the policy. */
export function appendHistory(history: readonly LagHistorySample[], added: readonly LagHistorySample[], nowMs: number, policy: LagHistoryPolicy = DEFAULT_LAG_HISTORY): LagHistorySample[] {
  return recentHistory([...history, ...added], nowMs, policy);
}
