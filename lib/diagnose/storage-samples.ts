// Disk and inode use of each log dir over time: the bot keeps one sample per
// audit run in the state store; a least-squares line over them says whether
// the dir reaches 100% within 7 days. Pure.

import type { HostProbeOutcome } from '../hosts/types.ts';

export interface StorageSample {
  at: number;
  brokerId: number;
  path: string;
  diskUsedPercent: number | null;
  inodeUsedPercent: number | null;
}

export const TREND_HORIZON_MS = 7 * 24 * 3600_000;
/** Fewer samples, or a shorter span, is no trend. */
export const MIN_TREND_SAMPLES = 3;
export const MIN_TREND_SPAN_MS = 6 * 3600_000;
export const KEEP_SAMPLES_MS = 14 * 24 * 3600_000;

export function samplesFromProbes(probes: readonly HostProbeOutcome[], at: number): StorageSample[] {
  return probes.flatMap((o) =>
    o.ok ? o.report.logDirs.filter((d) => d.exists).map((d) => ({ at, brokerId: o.brokerId, path: d.path, diskUsedPercent: d.diskUsedPercent, inodeUsedPercent: d.inodeUsedPercent })) : [],
  );
}

/** Percent per ms from a least-squares fit; null when the points do not make a trend. */
export function slope(points: readonly { at: number; value: number }[]): number | null {
  if (points.length < MIN_TREND_SAMPLES) return null;
  const span = points[points.length - 1]!.at - points[0]!.at;
  if (span < MIN_TREND_SPAN_MS) return null;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.at, 0) / n;
  const my = points.reduce((s, p) => s + p.value, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.at - mx) * (p.value - my);
    den += (p.at - mx) ** 2;
  }
  return den === 0 ? null : num / den;
}

/** A log dir whose use, fitted over its samples, reaches 100% within the horizon: its points, the growth rate (percent per ms) and the time left. */
export interface StorageTrend {
  brokerId: number;
  path: string;
  points: { at: number; value: number }[];
  rate: number;
  msToFull: number;
}

/** The log dirs whose disk or inode use reaches 100% within TREND_HORIZON_MS, over the kept samples and this run's. */
export function fillingDirs(field: 'diskUsedPercent' | 'inodeUsedPercent', history: readonly StorageSample[], probes: readonly HostProbeOutcome[], nowMs: number): StorageTrend[] {
  const all = [...history, ...samplesFromProbes(probes, nowMs)];
  const byDir = new Map<string, StorageSample[]>();
  for (const s of all) byDir.set(`${s.brokerId}\u0000${s.path}`, [...(byDir.get(`${s.brokerId}\u0000${s.path}`) ?? []), s]);
  const out: StorageTrend[] = [];
  for (const samples of byDir.values()) {
    const points = samples.flatMap((s) => (s[field] === null ? [] : [{ at: s.at, value: s[field]! }])).sort((a, b) => a.at - b.at);
    const rate = slope(points);
    const last = points.at(-1);
    if (rate === null || rate <= 0 || !last) continue;
    const msToFull = (100 - last.value) / rate;
    if (msToFull > TREND_HORIZON_MS) continue;
    const { brokerId, path } = samples[0]!;
    out.push({ brokerId, path, points, rate, msToFull });
  }
  return out;
}

export function keepRecent(samples: readonly StorageSample[], nowMs: number): StorageSample[] {
  return samples.filter((s) => nowMs - s.at <= KEEP_SAMPLES_MS);
}
