// stop-timeout-below-shutdown (preventive, host probe): a systemd stop timeout shorter than a controlled shutdown. The audit runs it.

import { SHUTDOWN_MARGIN, stopTimeoutShortfall } from '../../hosts/shutdown-timing.ts';
import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { okReports } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'stop-timeout-below-shutdown': true;
  }
}

/**
 * The least systemd stop timeout: what a controlled shutdown needs when none was
 * measured, and the floor when one was (a shutdown timed on a quiet day says
 * little about one under load with thousands of leaders to move).
 */
export const UNMEASURED_SHUTDOWN_SEC = 120;

/** What the renderer words: the broker, its unit and stop timeout, the last controlled shutdown (null: none measured), and the timeout it needs. */
interface Facts {
  brokerId: number;
  unit: string;
  timeoutStopSec: number;
  took: string | null;
  /** The timeout is shorter than the last controlled shutdown itself. */
  belowMeasured: boolean;
  neededSec: number;
}

function detect({ probes }: CheckInput): Detected<Facts>[] {
  return okReports(probes).flatMap(({ brokerId, report }): Detected<Facts>[] => {
    const sd = report.systemd;
    if (!sd || sd.timeoutStopSec === null) return [];
    const short = stopTimeoutShortfall(sd.timeoutStopSec, report.lastShutdownSeconds ?? null, UNMEASURED_SHUTDOWN_SEC);
    if (!short) return [];
    const took = short.measuredText;
    const evidence = [
      { label: 'TimeoutStopSec', value: sd.timeoutStopRaw ?? String(sd.timeoutStopSec), source: `broker:${brokerId}` },
      {
        label: 'controlled shutdown',
        value: took === null ? `not in server.log (assumed ${UNMEASURED_SHUTDOWN_SEC}s)` : `${took} (the last one in server.log); wanted at least ${short.neededSec}s`,
        source: `broker:${brokerId}`,
      },
    ];
    return [
      {
        finding: { kind: 'stop-timeout-below-shutdown', severity: short.belowMeasured ? 'critical' : 'warning', brokers: [brokerId], evidence },
        facts: { brokerId, unit: sd.unit, timeoutStopSec: sd.timeoutStopSec, took, belowMeasured: short.belowMeasured, neededSec: short.neededSec },
      },
    ];
  });
}

function render({ brokerId, unit, timeoutStopSec, took, belowMeasured, neededSec }: Facts): FindingProse {
  const why = belowMeasured
    ? `its last controlled shutdown took ${took}`
    : neededSec > UNMEASURED_SHUTDOWN_SEC
      ? `less than ${SHUTDOWN_MARGIN}× its last controlled shutdown (${took})`
      : `under ${UNMEASURED_SHUTDOWN_SEC}s`;
  return {
    title: `Broker ${brokerId}: systemd kills it after ${timeoutStopSec}s, ${why}`,
    summary: `${unit} has TimeoutStopSec=${timeoutStopSec}s. A stop that takes longer is SIGKILLed: no clean shutdown, a long recovery at the next start, and possibly a leaderless partition.`,
    nextActions: [`Set TimeoutStopSec=${Math.max(600, neededSec)} in a drop-in for ${unit} and run systemctl daemon-reload.`],
  };
}

export const stopTimeoutBelowShutdownCheck: Check = {
  kinds: ['stop-timeout-below-shutdown'],
  needs: ['hosts'],
  diagnosis: false,
  preventive: { prevents: 'a broker SIGKILLed mid-shutdown, a long recovery and a leaderless partition' },
  detect: (input) => detect(input).map((d) => renderFinding(d, render)),
};
