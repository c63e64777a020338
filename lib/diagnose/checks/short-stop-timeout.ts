// short-stop-timeout (per host): a systemd stop timeout that can SIGKILL a controlled shutdown.

import { stopTimeoutShortfall } from '../../hosts/shutdown-timing.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'short-stop-timeout': true;
  }
}

/** systemd's default 90 s is shorter than a large broker's controlled shutdown (a kill -9 outage began so). */
export const MIN_STOP_TIMEOUT_SEC = 300;

/** What the renderer words: the broker, its systemd unit and stop timeout, the last controlled shutdown, and the timeout it needs. */
interface Facts {
  brokerId: number;
  unit: string;
  timeoutStopSec: number;
  /** How long the last controlled shutdown took, as server.log said; null when none was measured. */
  took: string | null;
  neededSec: number;
}

/** A systemd stop timeout that can SIGKILL a controlled shutdown (or did: shorter than the last one measured). */
function detect({ brokerId, report, brokers, id }: HostReport): Detected<Facts>[] {
  const sd = report.systemd;
  if (!sd || sd.timeoutStopSec === null) return [];
  const short = stopTimeoutShortfall(sd.timeoutStopSec, report.lastShutdownSeconds ?? null, MIN_STOP_TIMEOUT_SEC);
  if (!short) return [];
  const took = short.measuredText;
  const evidence = [
    { label: 'TimeoutStopSec', value: String(sd.timeoutStopSec), source: `broker:${brokerId}` },
    ...(took === null ? [] : [{ label: 'last controlled shutdown', value: `${took} (server.log)`, source: `broker:${brokerId}` }]),
  ];
  return [
    {
      finding: { kind: 'short-stop-timeout', severity: short.belowMeasured ? 'critical' : 'warning', brokers, evidence, identity: id() },
      facts: { brokerId, unit: sd.unit, timeoutStopSec: sd.timeoutStopSec, took, neededSec: short.neededSec },
    },
  ];
}

function render({ brokerId, unit, timeoutStopSec, took, neededSec }: Facts): FindingProse {
  return {
    title: `Broker ${brokerId}: systemd stops it after ${timeoutStopSec}s${took === null ? '' : `, its last controlled shutdown took ${took}`}`,
    summary: `${unit} has TimeoutStopSec=${timeoutStopSec}s. A large broker's controlled shutdown can take longer; systemd then sends SIGKILL and the next start runs a long log recovery (systemd's default is 90 s).`,
    nextActions: [`Set TimeoutStopSec=${Math.max(600, neededSec)} in a drop-in for ${unit} and run systemctl daemon-reload.`],
  };
}

export const shortStopTimeoutCheck: Check = perHost(['short-stop-timeout'], (h) => detect(h).map((d) => renderFinding(d, render)));
