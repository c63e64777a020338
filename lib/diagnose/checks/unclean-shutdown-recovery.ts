// unclean-shutdown-recovery (per host, server.log): the broker recovering its logs after an unclean stop.

import type { Check } from './check.ts';
import type { Finding } from '../types.ts';
import { makeFinding } from '../finding.ts';
import { logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'unclean-shutdown-recovery': true;
  }
}

/** Log recovery after a crash or kill -9, finished or still running. */
function uncleanShutdownRecovery({ brokerId, report, host, brokers, id }: HostReport): Finding[] {
  if (report.recoveryInProgress || report.logs.uncleanShutdownRecovery.length > 0) {
    return [
      makeFinding({
        kind: 'unclean-shutdown-recovery',
        // Once recovery has completed the broker serves normally: what is left is the
        // question why it stopped uncleanly (short-stop-timeout has its own finding).
        severity: report.recoveryInProgress ? 'error' : 'info',
        title: report.recoveryInProgress
          ? `Broker ${brokerId} is still recovering logs after an unclean shutdown`
          : `Broker ${brokerId} last started after an unclean shutdown`,
        summary:
          `${host} found no .kafka_cleanshutdown marker and ran log recovery` +
          (report.recoveryInProgress ? ', which is still running: its partitions are not served until it completes. Do not restart it again now.' : '. The previous stop was a crash or kill -9 (often a stop timeout shorter than the controlled shutdown).'),
        brokers,
        evidence: [
          ...(report.recoveryInProgress ? [{ label: 'log recovery', value: 'in progress on the running broker process', source: `broker:${brokerId}` }] : []),
          ...logLines('server.log', report.logs.uncleanShutdownRecovery, brokerId),
          ...logLines('recovery progress', report.logs.recoveryProgress.slice(-3), brokerId),
        ],
        identity: id(),
        nextActions: report.recoveryInProgress
          ? ['Wait for "Loaded N logs" / recovery completion in server.log; watch remainingSegmentsToRecover.', 'Do not restart or kill the broker during recovery.']
          : ['Check the stop timeout (short-stop-timeout) and how the broker was last stopped.'],
      }),
    ];
  }
  return [];
}

export const uncleanShutdownRecoveryCheck: Check = perHost(['unclean-shutdown-recovery'], uncleanShutdownRecovery);
