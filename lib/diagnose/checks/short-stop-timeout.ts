// short-stop-timeout (per host): a systemd stop timeout that can SIGKILL a controlled shutdown.

import { stopTimeoutShortfall } from '../../hosts/shutdown-timing.ts';
import type { Check } from './check.ts';
import type { Finding } from '../types.ts';
import { makeFinding } from '../finding.ts';
import { perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'short-stop-timeout': true;
  }
}

/** systemd's default 90 s is shorter than a large broker's controlled shutdown (a kill -9 outage began so). */
export const MIN_STOP_TIMEOUT_SEC = 300;

/** A systemd stop timeout that can SIGKILL a controlled shutdown (or did: shorter than the last one measured). */
function shortStopTimeout({ brokerId, report, brokers, id }: HostReport): Finding[] {
  const sd = report.systemd;
  const short = sd && sd.timeoutStopSec !== null ? stopTimeoutShortfall(sd.timeoutStopSec, report.lastShutdownSeconds ?? null, MIN_STOP_TIMEOUT_SEC) : null;
  if (sd && short) {
    const took = short.measuredText;
    return [
      makeFinding({
        kind: 'short-stop-timeout',
        severity: short.belowMeasured ? 'critical' : 'warning',
        title: `Broker ${brokerId}: systemd stops it after ${sd.timeoutStopSec}s${took === null ? '' : `, its last controlled shutdown took ${took}`}`,
        summary: `${sd.unit} has TimeoutStopSec=${sd.timeoutStopSec}s. A large broker's controlled shutdown can take longer; systemd then sends SIGKILL and the next start runs a long log recovery (systemd's default is 90 s).`,
        brokers,
        evidence: [
          { label: 'TimeoutStopSec', value: String(sd.timeoutStopSec), source: `broker:${brokerId}` },
          ...(took === null ? [] : [{ label: 'last controlled shutdown', value: `${took} (server.log)`, source: `broker:${brokerId}` }]),
        ],
        identity: id(),
        nextActions: [`Set TimeoutStopSec=${Math.max(600, short.neededSec)} in a drop-in for ${sd.unit} and run systemctl daemon-reload.`],
      }),
    ];
  }
  return [];
}

export const shortStopTimeoutCheck: Check = perHost(['short-stop-timeout'], shortStopTimeout);
