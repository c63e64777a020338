// The storage trend both preventive trend checks read (disk-trend-full.ts,
// inode-trend-full.ts): a log dir whose disk or inode use, fitted over the
// samples the scheduled audit keeps, reaches 100% within a week
// (storage-samples.ts does the fit). Needs that history: a one-shot run has
// none. Helpers only: no check lives here.

import type { CheckInput } from './check.ts';
import { trendFindings } from '../storage-samples.ts';
import type { Finding } from '../types.ts';

export const storageTrend =
  (kind: 'disk-trend-full' | 'inode-trend-full') =>
  ({ probes, storageHistory, nowMs }: CheckInput): Finding[] =>
    storageHistory == null || nowMs === undefined ? [] : trendFindings(kind, storageHistory, probes, nowMs);
