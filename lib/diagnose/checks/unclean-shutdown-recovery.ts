// unclean-shutdown-recovery (per host, server.log): the broker recovering its logs after an unclean stop.

import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'unclean-shutdown-recovery': true;
  }
}

/** What the renderer words: the broker, its host, and whether recovery is still running. */
interface Facts {
  brokerId: number;
  host: string;
  inProgress: boolean;
}

/** Log recovery after a crash or kill -9, finished or still running. */
function detect({ brokerId, report, host, brokers, id }: HostReport): Detected<Facts>[] {
  if (!report.recoveryInProgress && report.logs.uncleanShutdownRecovery.length === 0) return [];
  const inProgress = report.recoveryInProgress;
  const evidence = [
    ...(inProgress ? [{ label: 'log recovery', value: 'in progress on the running broker process', source: `broker:${brokerId}` }] : []),
    ...logLines('server.log', report.logs.uncleanShutdownRecovery, brokerId),
    ...logLines('recovery progress', report.logs.recoveryProgress.slice(-3), brokerId),
  ];
  // Once recovery has completed the broker serves normally: what is left is the
  // question why it stopped uncleanly (short-stop-timeout has its own finding).
  return [{ finding: { kind: 'unclean-shutdown-recovery', severity: inProgress ? 'error' : 'info', brokers, evidence, identity: id() }, facts: { brokerId, host, inProgress } }];
}

function render({ brokerId, host, inProgress }: Facts): FindingProse {
  return {
    title: inProgress ? `Broker ${brokerId} is still recovering logs after an unclean shutdown` : `Broker ${brokerId} last started after an unclean shutdown`,
    summary:
      `${host} found no .kafka_cleanshutdown marker and ran log recovery` +
      (inProgress ? ', which is still running: its partitions are not served until it completes. Do not restart it again now.' : '. The previous stop was a crash or kill -9 (often a stop timeout shorter than the controlled shutdown).'),
    nextActions: inProgress
      ? ['Wait for "Loaded N logs" / recovery completion in server.log; watch remainingSegmentsToRecover.', 'Do not restart or kill the broker during recovery.']
      : ['Check the stop timeout (short-stop-timeout) and how the broker was last stopped.'],
  };
}

export const uncleanShutdownRecoveryCheck: Check = perHost(['unclean-shutdown-recovery'], (h) => detect(h).map((d) => renderFinding(d, render)));
