// disk-trend-full (preventive, storage samples): a log dir's disk on course to fill. The audit runs it.

import type { Check } from './check.ts';
import { storageTrend } from './storage-trend.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'disk-trend-full': true;
  }
}

export const diskTrendFullCheck: Check = { kinds: ['disk-trend-full'], needs: ['history'], diagnosis: false, preventive: { prevents: 'a log dir filling up and going offline with its partitions' }, detect: storageTrend('disk-trend-full') };
