// index-append-fatal (per host, server.log): a fatal offset-index append stops the whole broker.

import type { Check } from './check.ts';
import type { Finding } from '../types.ts';
import { makeFinding } from '../finding.ts';
import { allBeforeProcessStart, logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'index-append-fatal': true;
  }
}

/** A fatal offset-index append stops the whole broker. */
function indexAppendFatal({ brokerId, report, host, brokers, id, runningSince }: HostReport): Finding[] {
  if (report.logs.indexAppendFatal.length > 0) {
    const earlier = allBeforeProcessStart(report.logs.indexAppendFatal, runningSince);
    return [
      makeFinding({
        kind: 'index-append-fatal',
        // Logged before the running process started: the broker got past it since.
        severity: earlier ? 'warning' : 'critical',
        title: `Broker ${brokerId} hit a fatal offset-index append during log recovery${earlier ? ' (in an earlier run)' : ''}`,
        summary:
          `On ${host}, rebuilding an offset index failed with "Attempt to append an offset ... no larger than the last offset appended". ` +
          'This exception stops the whole broker, so one bad segment takes every partition on it down.' +
          (earlier ? ` The broker has been running since ${runningSince}; check that the segment was dealt with, not just skipped.` : ''),
        brokers,
        evidence: logLines('server.log', report.logs.indexAppendFatal, brokerId),
        identity: id(),
        nextActions: [
          'Identify the segment named in the error; inspect it with kafka-dump-log.sh --files <segment>.log.',
          'If other replicas are in sync, move the damaged partition directory aside (do not delete it) and let the broker re-fetch from the leader.',
          'Never delete the log of the last in-sync replica.',
        ],
      }),
    ];
  }
  return [];
}

export const indexAppendFatalCheck: Check = perHost(['index-append-fatal'], indexAppendFatal);
