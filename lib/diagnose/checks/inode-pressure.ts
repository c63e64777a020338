// inode-pressure (per host): a log dir's inodes nearly used up.

import type { Check } from './check.ts';
import { perHost } from './host-report.ts';
import { storagePressure } from './host-pressure.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'inode-pressure': true;
  }
}

export const inodePressureCheck: Check = perHost(['inode-pressure'], storagePressure('inode-pressure', (d) => d.inodeUsedPercent, 'inodes'));
