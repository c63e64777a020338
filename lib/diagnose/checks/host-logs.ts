// Per-host checks over the broker's own log lines (server.log,
// log-cleaner.log): what the broker said happened to its logs.

import { CONSUMER_OFFSETS_TOPIC } from '../../kafka/group-partition.ts';
import type { Check } from './check.ts';
import type { Finding } from '../types.ts';
import { makeFinding, plural } from '../finding.ts';
import { allBeforeProcessStart, logLines, perHost, type HostReport } from './host-report.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'index-append-fatal': true;
    'unclean-shutdown-recovery': true;
    'corrupt-index': true;
    'log-cleaner-stalled': true;
    'unsupported-request-version': true;
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

/** A dead log cleaner: compacted topics (and __consumer_offsets) grow without bound. */
function logCleanerStalled({ brokerId, report, host, brokers, id }: HostReport): Finding[] {
  if (report.logs.logCleanerFailure.length > 0 || report.logs.uncleanablePartitions.length > 0) {
    const all = [...report.logs.logCleanerFailure, ...report.logs.uncleanablePartitions];
    const touchesOffsets = all.some((l) => l.includes(CONSUMER_OFFSETS_TOPIC));
    return [
      makeFinding({
        kind: 'log-cleaner-stalled',
        severity: touchesOffsets ? 'error' : 'warning',
        title: `Log cleaner on broker ${brokerId} failed` + (touchesOffsets ? ` (including ${CONSUMER_OFFSETS_TOPIC})` : ''),
        summary:
          `${host}'s log cleaner died or marked partitions uncleanable: compacted topics stop being compacted and grow without bound.` +
          (touchesOffsets ? ' For __consumer_offsets this is how coordinator loads that take hours start.' : ''),
        brokers,
        evidence: logLines('log-cleaner.log', all, brokerId),
        identity: id(),
        nextActions: ['Read the first error in log-cleaner.log; fix its cause (disk, corrupt segment).', 'A broker restart restarts the cleaner thread; plan it with can-restart.'],
      }),
    ];
  }
  return [];
}

/** Requests the broker cannot parse. */
function unsupportedRequestVersion({ brokerId, report, host, brokers, id }: HostReport): Finding[] {
  if (report.logs.unsupportedRequestVersion.length > 0) {
    return [
      makeFinding({
        kind: 'unsupported-request-version',
        severity: 'error',
        title: `Broker ${brokerId} rejects requests with unsupported API versions`,
        summary: `${host} received requests it could not parse. On some versions the network layer then drops every request read in the same batch, so failures look intermittent.`,
        brokers,
        evidence: logLines('server.log', report.logs.unsupportedRequestVersion, brokerId),
        identity: id(),
        nextActions: ['Find the client (connection id / address in the line) and pin or upgrade its library.', 'Do not ignore a flapping write-failure alert.'],
      }),
    ];
  }
  return [];
}

export const indexAppendFatalCheck: Check = perHost(['index-append-fatal'], indexAppendFatal);
export const uncleanShutdownRecoveryCheck: Check = perHost(['unclean-shutdown-recovery'], uncleanShutdownRecovery);
export const corruptIndexCheck: Check = perHost(['corrupt-index'], corruptIndex);
export const logCleanerStalledCheck: Check = {
  ...perHost(['log-cleaner-stalled'], logCleanerStalled),
  preventive: { prevents: '__consumer_offsets growing until group coordinators take hours to load' },
};
export const unsupportedRequestVersionCheck: Check = perHost(['unsupported-request-version'], unsupportedRequestVersion);
