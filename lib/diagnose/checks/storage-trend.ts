// Preventive checks of storage over time: a log dir whose disk or inode use,
// fitted over the samples the scheduled audit keeps, reaches 100% within a
// week (storage-samples.ts does the fit). Needs that history: a one-shot run
// has none.

import type { Check, CheckInput } from './check.ts';
import { trendFindings } from '../storage-samples.ts';
import type { Finding } from '../types.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'disk-trend-full': true;
    'inode-trend-full': true;
  }
}

const storageTrend =
  (kind: 'disk-trend-full' | 'inode-trend-full') =>
  ({ probes, storageHistory, nowMs }: CheckInput): Finding[] =>
    storageHistory == null || nowMs === undefined ? [] : trendFindings(kind, storageHistory, probes, nowMs);

export const STORAGE_TREND_CHECKS: readonly Check[] = [
  { kinds: ['disk-trend-full'], needs: ['history'], diagnosis: false, preventive: { prevents: 'a log dir filling up and going offline with its partitions' }, detect: storageTrend('disk-trend-full') },
  { kinds: ['inode-trend-full'], needs: ['history'], diagnosis: false, preventive: { prevents: 'a log dir out of inodes, unable to roll segments' }, detect: storageTrend('inode-trend-full') },
];
