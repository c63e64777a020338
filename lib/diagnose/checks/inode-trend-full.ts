// inode-trend-full (preventive, storage samples): a log dir's inodes on course to run out. The audit runs it.

import type { Check } from './check.ts';
import { storageTrend } from './storage-trend.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'inode-trend-full': true;
  }
}

export const inodeTrendFullCheck: Check = { kinds: ['inode-trend-full'], needs: ['history'], diagnosis: false, preventive: { prevents: 'a log dir out of inodes, unable to roll segments' }, detect: storageTrend('inode-trend-full') };
