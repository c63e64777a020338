// How long a broker's controlled shutdown took, from its own server.log lines
// (the start and end lines of log-patterns.ts, which the probe collects). The
// restart plan, the audit's stop-timeout check and the diagnosis's
// short-stop-timeout rule all judge systemd's TimeoutStopSec against it.

import { classifyLogLine } from './log-patterns.ts';

/** A timestamp at the start of a log4j line: "[2026-11-30 18:40:01,123]". */
const LOG_TIME = /^\[(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}),(\d{3})\]/;

function lineTime(line: string): number | null {
  const m = LOG_TIME.exec(line);
  if (!m) return null;
  // Host-local time without a zone: only differences are used.
  const t = Date.parse(`${m[1]}T${m[2]}.${m[3]}Z`);
  return Number.isFinite(t) ? t : null;
}

/** How long the newest complete shutdown in these lines (oldest first) took, in seconds; null when none is there. */
export function lastShutdownSeconds(lines: readonly string[]): number | null {
  let start: number | null = null;
  let result: number | null = null;
  for (const line of lines) {
    const kind = classifyLogLine(line)?.kind;
    if (kind === 'shutdown-started') start = lineTime(line);
    else if (kind === 'shutdown-completed' && start !== null) {
      const end = lineTime(line);
      if (end !== null && end >= start) result = (end - start) / 1000;
      start = null;
    }
  }
  return result;
}

/** Headroom a stop timeout should leave over the last measured controlled shutdown. */
export const SHUTDOWN_MARGIN = 1.5;

export interface StopTimeoutShortfall {
  /** The least timeout wanted: the floor, or the measured shutdown with its margin. */
  neededSec: number;
  /** The last measured shutdown as people read it ("95.3s"); null when none was measured. */
  measuredText: string | null;
  /** Shorter than the last shutdown itself: the next stop of the same kind is SIGKILLed. */
  belowMeasured: boolean;
}

/** Whether a systemd stop timeout is too short for this broker; null when it is long enough. */
export function stopTimeoutShortfall(timeoutStopSec: number, measuredSec: number | null, floorSec: number): StopTimeoutShortfall | null {
  const neededSec = Math.max(floorSec, Math.ceil((measuredSec ?? 0) * SHUTDOWN_MARGIN));
  if (timeoutStopSec >= neededSec) return null;
  return {
    neededSec,
    measuredText: measuredSec === null ? null : `${Math.round(measuredSec * 10) / 10}s`,
    belowMeasured: measuredSec !== null && timeoutStopSec < measuredSec,
  };
}
