// fd-mmap-headroom (preventive, host probe): file descriptor / memory map use near its limit. The audit runs it.

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { okReports } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'fd-mmap-headroom': true;
  }
}

/** fd / mmap use above this share of the limit leaves less than 20% headroom. */
export const HEADROOM_USED_PERCENT = 80;

/** What the renderer words: the broker and which limits are tight. */
interface Facts {
  brokerId: number;
  tight: ('open file descriptors' | 'memory maps')[];
}

function detect({ probes }: CheckInput): Detected<Facts>[] {
  return okReports(probes).flatMap(({ brokerId, report }): Detected<Facts>[] => {
    const tight = (
      [
        ['open file descriptors', report.limits.openFds, report.limits.maxFds, 'ulimit -n'],
        ['memory maps', report.limits.mapCount, report.limits.maxMapCount, 'vm.max_map_count'],
      ] as const
    ).filter(([, used, max]) => used !== null && max !== null && max > 0 && (used / max) * 100 > HEADROOM_USED_PERCENT);
    if (tight.length === 0) return [];
    const evidence = tight.map(([what, used, max, limit]) => ({ label: what, value: `${used} of ${max} (${limit}), ${Math.round((used! / max!) * 100)}%`, source: `broker:${brokerId}` }));
    return [{ finding: { kind: 'fd-mmap-headroom', severity: 'warning', brokers: [brokerId], evidence }, facts: { brokerId, tight: tight.map(([what]) => what) } }];
  });
}

function render({ brokerId, tight }: Facts): FindingProse {
  return {
    title: `Broker ${brokerId}: under 20% headroom on ${tight.join(' and ')}`,
    summary: 'Each segment costs file descriptors and memory maps; more partitions or smaller segments push the broker over its limit, and it exits when it cannot open a segment.',
    nextActions: ['Raise LimitNOFILE / vm.max_map_count before partitions grow; check for topics with tiny segment.bytes.'],
  };
}

export const fdMmapHeadroomCheck: Check = {
  kinds: ['fd-mmap-headroom'],
  needs: ['hosts'],
  diagnosis: false,
  preventive: { prevents: 'a broker exiting (and crash-looping) when it cannot open a segment' },
  detect: (input) => detect(input).map((d) => renderFinding(d, render)),
};
