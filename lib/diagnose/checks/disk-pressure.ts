// disk-pressure (per host): a log dir's disk nearly full.

import type { Check } from './check.ts';
import { perHost } from './host-report.ts';
import { storagePressure } from './host-pressure.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'disk-pressure': true;
  }
}

export const diskPressureCheck: Check = perHost(['disk-pressure'], storagePressure('disk-pressure', (d) => d.diskUsedPercent, 'disk space'));
