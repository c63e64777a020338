// Preventive checks of each broker host's limits (the read-only host probe):
// a systemd stop timeout shorter than a controlled shutdown, and file
// descriptor / memory map use near its limit. The audit runs them.

import { SHUTDOWN_MARGIN, stopTimeoutShortfall } from '../../hosts/shutdown-timing.ts';
import type { HostProbeOutcome } from '../../hosts/types.ts';
import type { Check, CheckInput } from './check.ts';
import { makeFinding } from '../finding.ts';
import type { Finding } from '../types.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'stop-timeout-below-shutdown': true;
    'fd-mmap-headroom': true;
  }
}

/**
 * The least systemd stop timeout: what a controlled shutdown needs when none was
 * measured, and the floor when one was (a shutdown timed on a quiet day says
 * little about one under load with thousands of leaders to move).
 */
export const UNMEASURED_SHUTDOWN_SEC = 120;
/** fd / mmap use above this share of the limit leaves less than 20% headroom. */
export const HEADROOM_USED_PERCENT = 80;

const okReports = (probes: readonly HostProbeOutcome[]) => probes.flatMap((o) => (o.ok ? [{ brokerId: o.brokerId, report: o.report }] : []));

function stopTimeoutBelowShutdown({ probes }: CheckInput): Finding[] {
  return okReports(probes).flatMap(({ brokerId, report }) => {
    const sd = report.systemd;
    if (!sd || sd.timeoutStopSec === null) return [];
    const short = stopTimeoutShortfall(sd.timeoutStopSec, report.lastShutdownSeconds ?? null, UNMEASURED_SHUTDOWN_SEC);
    if (!short) return [];
    const took = short.measuredText;
    const why = short.belowMeasured
      ? `its last controlled shutdown took ${took}`
      : short.neededSec > UNMEASURED_SHUTDOWN_SEC
        ? `less than ${SHUTDOWN_MARGIN}× its last controlled shutdown (${took})`
        : `under ${UNMEASURED_SHUTDOWN_SEC}s`;
    return [
      makeFinding({
        kind: 'stop-timeout-below-shutdown',
        severity: short.belowMeasured ? 'critical' : 'warning',
        title: `Broker ${brokerId}: systemd kills it after ${sd.timeoutStopSec}s, ${why}`,
        summary: `${sd.unit} has TimeoutStopSec=${sd.timeoutStopSec}s. A stop that takes longer is SIGKILLed: no clean shutdown, a long recovery at the next start, and possibly a leaderless partition.`,
        brokers: [brokerId],
        evidence: [
          { label: 'TimeoutStopSec', value: sd.timeoutStopRaw ?? String(sd.timeoutStopSec), source: `broker:${brokerId}` },
          {
            label: 'controlled shutdown',
            value: took === null ? `not in server.log (assumed ${UNMEASURED_SHUTDOWN_SEC}s)` : `${took} (the last one in server.log); wanted at least ${short.neededSec}s`,
            source: `broker:${brokerId}`,
          },
        ],
        nextActions: [`Set TimeoutStopSec=${Math.max(600, short.neededSec)} in a drop-in for ${sd.unit} and run systemctl daemon-reload.`],
      }),
    ];
  });
}

function fdMmapHeadroom({ probes }: CheckInput): Finding[] {
  return okReports(probes).flatMap(({ brokerId, report }) => {
    const tight = (
      [
        ['open file descriptors', report.limits.openFds, report.limits.maxFds, 'ulimit -n'],
        ['memory maps', report.limits.mapCount, report.limits.maxMapCount, 'vm.max_map_count'],
      ] as const
    ).filter(([, used, max]) => used !== null && max !== null && max > 0 && (used / max) * 100 > HEADROOM_USED_PERCENT);
    if (tight.length === 0) return [];
    return [
      makeFinding({
        kind: 'fd-mmap-headroom',
        severity: 'warning',
        title: `Broker ${brokerId}: under 20% headroom on ${tight.map(([what]) => what).join(' and ')}`,
        summary: 'Each segment costs file descriptors and memory maps; more partitions or smaller segments push the broker over its limit, and it exits when it cannot open a segment.',
        brokers: [brokerId],
        evidence: tight.map(([what, used, max, limit]) => ({ label: what, value: `${used} of ${max} (${limit}), ${Math.round((used! / max!) * 100)}%`, source: `broker:${brokerId}` })),
        nextActions: ['Raise LimitNOFILE / vm.max_map_count before partitions grow; check for topics with tiny segment.bytes.'],
      }),
    ];
  });
}

export const STOP_TIMEOUT_CHECK: Check = {
  kinds: ['stop-timeout-below-shutdown'],
  needs: ['hosts'],
  diagnosis: false,
  preventive: { prevents: 'a broker SIGKILLed mid-shutdown, a long recovery and a leaderless partition' },
  detect: stopTimeoutBelowShutdown,
};

export const FD_MMAP_HEADROOM_CHECK: Check = {
  kinds: ['fd-mmap-headroom'],
  needs: ['hosts'],
  diagnosis: false,
  preventive: { prevents: 'a broker exiting (and crash-looping) when it cannot open a segment' },
  detect: fdMmapHeadroom,
};
