// mmap-pressure (per host): memory maps near vm.max_map_count.

import type { Check } from './check.ts';
import { perHost } from './host-report.ts';
import { limitPressure } from './host-pressure.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'mmap-pressure': true;
  }
}

export const mmapPressureCheck: Check = perHost(['mmap-pressure'], limitPressure('mmap-pressure', (l) => [l.mapCount, l.maxMapCount], 'memory maps', 'vm.max_map_count'));
