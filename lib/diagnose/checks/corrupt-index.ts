// corrupt-index (per host, server.log): index files the broker found corrupt and rebuilt.

import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { plural } from '../finding.ts';
import { allBeforeProcessStart, logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'corrupt-index': true;
  }
}

/** What the renderer words: the broker, its host, how many index files, and whether they were logged in an earlier run. */
interface Facts {
  brokerId: number;
  host: string;
  files: number;
  earlier: boolean;
}

/** Index files rebuilt at start. */
function detect({ brokerId, report, host, brokers, id, runningSince }: HostReport): Detected<Facts>[] {
  if (report.logs.corruptIndex.length === 0) return [];
  const earlier = allBeforeProcessStart(report.logs.corruptIndex, runningSince);
  // Rebuilt and the broker is serving (or it was an earlier run): history, not a current
  // risk. While the broker is down or still recovering, the rebuild may yet fail.
  const serving = report.process.running && !report.recoveryInProgress;
  return [
    {
      finding: { kind: 'corrupt-index', severity: earlier || serving ? 'info' : 'warning', brokers, evidence: logLines('server.log', report.logs.corruptIndex, brokerId), identity: id() },
      facts: { brokerId, host, files: report.logs.corruptIndex.length, earlier },
    },
  ];
}

function render({ brokerId, host, files, earlier }: Facts): FindingProse {
  return {
    title: `Broker ${brokerId} found ${plural(files, 'corrupt index file')}${earlier ? ' (in an earlier run)' : ''}`,
    summary: `${host} logged corrupted index files and rebuilt them. Usually a consequence of an unclean shutdown; rebuilding is slow on big segments and, on old brokers, can end in a fatal append.`,
    nextActions: ['Confirm the broker finished starting; look for index-append errors.', 'Find why it stopped uncleanly.'],
  };
}

export const corruptIndexCheck: Check = perHost(['corrupt-index'], (h) => detect(h).map((d) => renderFinding(d, render)));
