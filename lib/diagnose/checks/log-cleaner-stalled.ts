// log-cleaner-stalled (per host, log-cleaner.log): compacted topics (and __consumer_offsets) grow without bound.

import { CONSUMER_OFFSETS_TOPIC } from '../../kafka/group-partition.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'log-cleaner-stalled': true;
  }
}

/** What the renderer words: the broker, its host, and whether __consumer_offsets is among what the cleaner gave up on. */
interface Facts {
  brokerId: number;
  host: string;
  touchesOffsets: boolean;
}

/** A dead log cleaner: compacted topics (and __consumer_offsets) grow without bound. */
function detect({ brokerId, report, host, brokers, id }: HostReport): Detected<Facts>[] {
  if (report.logs.logCleanerFailure.length === 0 && report.logs.uncleanablePartitions.length === 0) return [];
  const all = [...report.logs.logCleanerFailure, ...report.logs.uncleanablePartitions];
  const touchesOffsets = all.some((l) => l.includes(CONSUMER_OFFSETS_TOPIC));
  return [
    {
      finding: { kind: 'log-cleaner-stalled', severity: touchesOffsets ? 'error' : 'warning', brokers, evidence: logLines('log-cleaner.log', all, brokerId), identity: id() },
      facts: { brokerId, host, touchesOffsets },
    },
  ];
}

function render({ brokerId, host, touchesOffsets }: Facts): FindingProse {
  return {
    title: `Log cleaner on broker ${brokerId} failed` + (touchesOffsets ? ` (including ${CONSUMER_OFFSETS_TOPIC})` : ''),
    summary:
      `${host}'s log cleaner died or marked partitions uncleanable: compacted topics stop being compacted and grow without bound.` +
      (touchesOffsets ? ' For __consumer_offsets this is how coordinator loads that take hours start.' : ''),
    nextActions: ['Read the first error in log-cleaner.log; fix its cause (disk, corrupt segment).', 'A broker restart restarts the cleaner thread; plan it with can-restart.'],
  };
}

export const logCleanerStalledCheck: Check = {
  ...perHost(['log-cleaner-stalled'], (h) => detect(h).map((d) => renderFinding(d, render))),
  preventive: { prevents: '__consumer_offsets growing until group coordinators take hours to load' },
};
