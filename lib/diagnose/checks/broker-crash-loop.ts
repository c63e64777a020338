// broker-crash-loop (per host): systemd restarting the broker over and over.

import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { plural } from '../finding.ts';
import { perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'broker-crash-loop': true;
  }
}

/** systemd restarts of the unit before we call it a crash loop. */
export const CRASH_LOOP_RESTARTS = 3;

/** What the renderer words: the broker, its host and systemd unit, its restarts and state. */
interface Facts {
  brokerId: number;
  host: string;
  unit: string;
  restarts: number | null;
  activeState: string | null;
}

/** Systemd restarting the broker over and over. */
function detect({ brokerId, report, host, brokers, id }: HostReport): Detected<Facts>[] {
  const sd = report.systemd;
  if (!sd || !((sd.restarts ?? 0) >= CRASH_LOOP_RESTARTS || sd.activeState === 'failed' || (sd.activeState === 'activating' && (sd.restarts ?? 0) > 0))) return [];
  const evidence = [
    { label: 'ActiveState', value: sd.activeState ?? 'unknown', source: `broker:${brokerId}` },
    { label: 'NRestarts', value: String(sd.restarts ?? 'unknown'), source: `broker:${brokerId}` },
    { label: 'last exit', value: `${sd.lastExitCode ?? '?'} status=${sd.lastExitStatus ?? '?'}`, source: `broker:${brokerId}` },
  ];
  return [
    {
      finding: { kind: 'broker-crash-loop', severity: 'critical', brokers, evidence, identity: id() },
      facts: { brokerId, host, unit: sd.unit, restarts: sd.restarts ?? null, activeState: sd.activeState ?? null },
    },
  ];
}

function render({ brokerId, host, unit, restarts, activeState }: Facts): FindingProse {
  return {
    title: `Broker ${brokerId} is crash-looping (${plural(restarts ?? 0, 'restart')}, ${activeState ?? 'unknown'})`,
    summary: `systemd keeps restarting ${unit} on ${host}; the reason is usually in the systemd journal, not server.log.`,
    nextActions: [`journalctl -u ${unit} -n 200 on the host; look for missing segments, fatal index errors, fd/mmap limits.`, 'Stop the restart loop (systemctl stop) while investigating, so each start does not re-run recovery.'],
  };
}

export const brokerCrashLoopCheck: Check = perHost(['broker-crash-loop'], (h) => detect(h).map((d) => renderFinding(d, render)));
