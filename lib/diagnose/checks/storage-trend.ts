// The storage trend both preventive trend checks read (disk-trend-full.ts,
// inode-trend-full.ts): a log dir whose disk or inode use, fitted over the
// samples the scheduled audit keeps, reaches 100% within a week
// (storage-samples.ts does the fit). Needs that history: a one-shot run has
// none. Helpers only: no check lives here.

import { renderFinding, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { fillingDirs, type StorageSample } from '../storage-samples.ts';
import type { HostProbeOutcome } from '../../hosts/types.ts';
import type { Finding } from '../types.ts';

type TrendKind = 'disk-trend-full' | 'inode-trend-full';

/** What the renderer words: the log dir, what fills it, its last use, its daily growth, the samples fitted and the days left. */
interface Facts {
  brokerId: number;
  path: string;
  kind: TrendKind;
  lastPercent: number;
  pointsPerDay: number;
  samples: number;
  days: number;
}

const whatOf = (kind: TrendKind) => (kind === 'disk-trend-full' ? 'disk space' : 'inodes');

function detect(kind: TrendKind, history: readonly StorageSample[], probes: readonly HostProbeOutcome[], nowMs: number): Detected<Facts>[] {
  const what = whatOf(kind);
  return fillingDirs(kind === 'disk-trend-full' ? 'diskUsedPercent' : 'inodeUsedPercent', history, probes, nowMs).map(({ brokerId, path, points, rate, msToFull }) => {
    const days = Math.max(0, msToFull / 86_400_000);
    return {
      finding: {
        kind,
        severity: days < 2 ? 'error' : 'warning',
        brokers: [brokerId],
        evidence: points.slice(-5).map((p) => ({ label: `${what} used`, value: `${p.value}% at ${new Date(p.at).toISOString()}`, source: `broker:${brokerId}` })),
        identity: [`broker:${brokerId}`, path],
      },
      facts: { brokerId, path, kind, lastPercent: points.at(-1)!.value, pointsPerDay: rate * 86_400_000, samples: points.length, days },
    };
  });
}

function render({ brokerId, path, kind, lastPercent, pointsPerDay, samples, days }: Facts): FindingProse {
  const what = whatOf(kind);
  return {
    // The title stays the same run to run (the scheduled audit reposts a finding whose title changes).
    title: `Broker ${brokerId}: ${path} runs out of ${what} within 7 days`,
    summary: `About ${days.toFixed(1)} days left: ${what} use of ${path} is ${lastPercent}% and grows ${pointsPerDay.toFixed(1)} points a day over ${samples} samples; a full log dir goes offline with its partitions.`,
    nextActions: ['Lower retention on the largest topics or move partitions away before it fills; grow the volume.'],
  };
}

/** The log dirs on course to fill within 7 days, as findings. */
export function trendFindings(kind: TrendKind, history: readonly StorageSample[], probes: readonly HostProbeOutcome[], nowMs: number): Finding[] {
  return detect(kind, history, probes, nowMs).map((d) => renderFinding(d, render));
}

export const storageTrend =
  (kind: TrendKind) =>
  ({ probes, storageHistory, nowMs }: CheckInput): Finding[] =>
    storageHistory == null || nowMs === undefined ? [] : trendFindings(kind, storageHistory, probes, nowMs);
