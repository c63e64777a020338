// broker-crash-loop (per host): systemd restarting the broker over and over.

import type { Check } from './check.ts';
import type { Finding } from '../types.ts';
import { makeFinding, plural } from '../finding.ts';
import { perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'broker-crash-loop': true;
  }
}

/** systemd restarts of the unit before we call it a crash loop. */
export const CRASH_LOOP_RESTARTS = 3;

/** Systemd restarting the broker over and over. */
function brokerCrashLoop({ brokerId, report, host, brokers, id }: HostReport): Finding[] {
  const sd = report.systemd;
  if (sd && ((sd.restarts ?? 0) >= CRASH_LOOP_RESTARTS || sd.activeState === 'failed' || (sd.activeState === 'activating' && (sd.restarts ?? 0) > 0))) {
    return [
      makeFinding({
        kind: 'broker-crash-loop',
        severity: 'critical',
        title: `Broker ${brokerId} is crash-looping (${plural(sd.restarts ?? 0, 'restart')}, ${sd.activeState ?? 'unknown'})`,
        summary: `systemd keeps restarting ${sd.unit} on ${host}; the reason is usually in the systemd journal, not server.log.`,
        brokers,
        evidence: [
          { label: 'ActiveState', value: sd.activeState ?? 'unknown', source: `broker:${brokerId}` },
          { label: 'NRestarts', value: String(sd.restarts ?? 'unknown'), source: `broker:${brokerId}` },
          { label: 'last exit', value: `${sd.lastExitCode ?? '?'} status=${sd.lastExitStatus ?? '?'}`, source: `broker:${brokerId}` },
        ],
        identity: id(),
        nextActions: [`journalctl -u ${sd.unit} -n 200 on the host; look for missing segments, fatal index errors, fd/mmap limits.`, 'Stop the restart loop (systemctl stop) while investigating, so each start does not re-run recovery.'],
      }),
    ];
  }
  return [];
}

export const brokerCrashLoopCheck: Check = perHost(['broker-crash-loop'], brokerCrashLoop);
