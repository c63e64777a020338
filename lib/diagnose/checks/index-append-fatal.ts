// index-append-fatal (per host, server.log): a fatal offset-index append stops the whole broker.

import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { allBeforeProcessStart, logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'index-append-fatal': true;
  }
}

/** What the renderer words: the broker, its host, and whether the fatal append was logged before the running process started. */
interface Facts {
  brokerId: number;
  host: string;
  earlier: boolean;
  runningSince: string | null;
}

/** A fatal offset-index append stops the whole broker. */
function detect({ brokerId, report, host, brokers, id, runningSince }: HostReport): Detected<Facts>[] {
  if (report.logs.indexAppendFatal.length === 0) return [];
  const earlier = allBeforeProcessStart(report.logs.indexAppendFatal, runningSince);
  return [
    {
      // Logged before the running process started: the broker got past it since.
      finding: { kind: 'index-append-fatal', severity: earlier ? 'warning' : 'critical', brokers, evidence: logLines('server.log', report.logs.indexAppendFatal, brokerId), identity: id() },
      facts: { brokerId, host, earlier, runningSince },
    },
  ];
}

function render({ brokerId, host, earlier, runningSince }: Facts): FindingProse {
  return {
    title: `Broker ${brokerId} hit a fatal offset-index append during log recovery${earlier ? ' (in an earlier run)' : ''}`,
    summary:
      `On ${host}, rebuilding an offset index failed with "Attempt to append an offset ... no larger than the last offset appended". ` +
      'This exception stops the whole broker, so one bad segment takes every partition on it down.' +
      (earlier ? ` The broker has been running since ${runningSince}; check that the segment was dealt with, not just skipped.` : ''),
    nextActions: [
      'Identify the segment named in the error; inspect it with kafka-dump-log.sh --files <segment>.log.',
      'If other replicas are in sync, move the damaged partition directory aside (do not delete it) and let the broker re-fetch from the leader.',
      'Never delete the log of the last in-sync replica.',
    ],
  };
}

export const indexAppendFatalCheck: Check = perHost(['index-append-fatal'], (h) => detect(h).map((d) => renderFinding(d, render)));
