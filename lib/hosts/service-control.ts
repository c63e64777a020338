// Stops, starts and reads the broker's service on its host through the fixed
// script service-control.sh (SSM Run Command, or the local executor on a
// sandbox host directory). Arguments are typed and checked here with the same
// patterns the script checks again; stdout is parsed with zod-free line rules
// into a ServiceStatus.

import { isHostPath } from './host-paths.ts';
import { parseSystemdTimespan } from './probe-output.ts';
import type { ExecutionResult, Executor, HostTarget } from './types.ts';

export type ServiceAction = 'stop' | 'start' | 'release' | 'status';

/** The script's own argument patterns (they are also the SSM document's allowedPattern values); dirs follow lib/hosts/host-paths.ts. */
export const SERVICE_ARG_PATTERNS = {
  action: /^(stop|start|release|status)$/,
  unit: /^[A-Za-z0-9][A-Za-z0-9@_.-]{0,62}$/,
} as const;
const MAX_LOG_DIRS = 16;


export interface ServiceCall {
  action: ServiceAction;
  unit: string;
  /** The broker's log4j directory (server.log), when known. */
  logsDir: string | null;
  /** Data log dirs whose clean-shutdown marker `status` reports. */
  logDirs: string[];
}

/** The script's parameters (lib/hosts/scripts.ts checks them again against the document's patterns), or why they cannot be sent. */
export function serviceParams(call: ServiceCall): Record<string, string> | string {
  if (!SERVICE_ARG_PATTERNS.action.test(call.action)) return `bad action ${call.action}`;
  if (!SERVICE_ARG_PATTERNS.unit.test(call.unit)) return `bad systemd unit name ${JSON.stringify(call.unit)}`;
  if (call.logsDir !== null && !isHostPath(call.logsDir)) return `logs dir ${JSON.stringify(call.logsDir)} is not a plain absolute path`;
  // A dir outside the rule cannot be passed; the probe already warned of it (probe.sh KR_PATH_RE).
  const dirs = call.logDirs.filter(isHostPath).slice(0, MAX_LOG_DIRS);
  return { action: call.action, unit: call.unit, logsDir: call.logsDir ?? '-', logDirs: dirs.join(',') };
}

export interface ServiceStatus {
  /** systemd's ActiveState (active, deactivating, inactive, failed...); sandbox: active or inactive. */
  state: string;
  /** The service's main process; null when none runs. */
  pid: number | null;
  /** Per log dir: clean-shutdown marker present (true), absent (false), or the dir is missing (null). */
  markers: { dir: string; present: boolean | null }[];
  /** systemd's TimeoutStopUSec text ("1min 30s", "infinity"); null when not on systemd. */
  timeoutStopRaw: string | null;
}

export function parseServiceStatus(stdout: string): ServiceStatus {
  const status: ServiceStatus = { state: 'unknown', pid: null, markers: [], timeoutStopRaw: null };
  for (const raw of stdout.split('\n')) {
    const line = raw.trimEnd();
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'state') status.state = value || 'unknown';
    else if (key === 'pid') status.pid = /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : null;
    else if (key === 'marker') {
      const m = /^([01-]) (\/.*)$/.exec(value);
      if (m) status.markers.push({ dir: m[2]!, present: m[1] === '-' ? null : m[1] === '1' });
    } else if (key === 'timeoutStop') status.timeoutStopRaw = value || null;
  }
  return status;
}

export interface ServiceRunResult {
  ok: boolean;
  stdout: string;
  /** Why it failed, as the transport or the script said. */
  detail: string;
  execution: ExecutionResult | null;
}

export async function runServiceControl(executor: Executor, target: HostTarget, call: ServiceCall, timeoutMs = 30_000): Promise<ServiceRunResult> {
  const params = serviceParams(call);
  if (typeof params === 'string') return { ok: false, stdout: '', detail: params, execution: null };
  const [execution] = await executor.run([target], {
    script: 'service-control',
    params,
    timeoutMs,
    comment: `kafka-responder broker service ${call.action} (broker ${target.brokerId})`.slice(0, 100),
  });
  if (!execution) return { ok: false, stdout: '', detail: 'the executor returned no result', execution: null };
  if (execution.status !== 'Success') {
    const why = execution.stderr.trim().split('\n').slice(-2).join(' ') || execution.detail || execution.status;
    return { ok: false, stdout: execution.stdout, detail: `${call.action} on broker ${target.brokerId}'s host: ${why}`, execution };
  }
  return { ok: true, stdout: execution.stdout, detail: '', execution };
}

/**
 * A call that did not succeed but may have taken effect on the host: it started there and
 * did not finish on its own (timed out, cancelled, still running). Its caller must not say
 * it was not done (a stop may still be under way). False when it never reached the host,
 * or ran to its end and said why it failed.
 */
export function mayHaveRun(result: ServiceRunResult): boolean {
  const outcome = result.execution?.outcome;
  return !result.ok && (outcome === 'interrupted' || outcome === 'may-still-be-running');
}

/** systemd's TimeoutStopUSec text ("1min 30s", "90s", "500ms", "infinity") in seconds; null when unreadable, Infinity for infinity. */
export function systemdSeconds(raw: string | null): number | null {
  if (raw?.trim() === 'infinity') return Infinity;
  return parseSystemdTimespan(raw);
}
