// corrupt-index (per host, server.log): index files the broker found corrupt and rebuilt.

import type { Check } from './check.ts';
import type { Finding } from '../types.ts';
import { makeFinding, plural } from '../finding.ts';
import { allBeforeProcessStart, logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'corrupt-index': true;
  }
}

/** Index files rebuilt at start. */
function corruptIndex({ brokerId, report, host, brokers, id, runningSince }: HostReport): Finding[] {
  if (report.logs.corruptIndex.length > 0) {
    const earlier = allBeforeProcessStart(report.logs.corruptIndex, runningSince);
    // Rebuilt and the broker is serving (or it was an earlier run): history, not a current
    // risk. While the broker is down or still recovering, the rebuild may yet fail.
    const serving = report.process.running && !report.recoveryInProgress;
    return [
      makeFinding({
        kind: 'corrupt-index',
        severity: earlier || serving ? 'info' : 'warning',
        title: `Broker ${brokerId} found ${plural(report.logs.corruptIndex.length, 'corrupt index file')}${earlier ? ' (in an earlier run)' : ''}`,
        summary: `${host} logged corrupted index files and rebuilt them. Usually a consequence of an unclean shutdown; rebuilding is slow on big segments and, on old brokers, can end in a fatal append.`,
        brokers,
        evidence: logLines('server.log', report.logs.corruptIndex, brokerId),
        identity: id(),
        nextActions: ['Confirm the broker finished starting; look for index-append errors.', 'Find why it stopped uncleanly.'],
      }),
    ];
  }
  return [];
}

export const corruptIndexCheck: Check = perHost(['corrupt-index'], corruptIndex);
