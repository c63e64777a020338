// fd-pressure (per host): open file descriptors near the broker's limit.

import type { Check } from './check.ts';
import { perHost } from './host-report.ts';
import { limitPressure } from './host-pressure.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'fd-pressure': true;
  }
}

export const fdPressureCheck: Check = perHost(['fd-pressure'], limitPressure('fd-pressure', (l) => [l.openFds, l.maxFds], 'open file descriptors', 'ulimit -n'));
