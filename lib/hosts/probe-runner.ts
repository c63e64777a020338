// Runs the host probe on a set of brokers and turns each answer into a
// HostProbeOutcome. One host that does not answer, fails or prints garbage
// becomes an `ok: false` outcome; it never takes the other hosts down.

import { existsSync } from 'node:fs';
import { parseProbeOutput, ProbeOutputError } from './probe-output.ts';
import type { ExecutionResult, Executor, HostProbeOutcome, HostTarget, ScriptRun } from './types.ts';
import { errorMessage } from '../runtime/errors.ts';

export { loadProbeScript } from './scripts.ts';

export interface ProbeHostsOptions {
  /** Per host, end to end (SSM: delivery + run + polls). Default 25 s. */
  timeoutMs?: number;
  comment?: string;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 25_000;

/** Parameters for one target: a sandbox host directory names its config (and a unit file standing in for systemd); a real host finds its own. */
export function probeParams(executor: Executor, target: HostTarget): Record<string, string> {
  if (executor.kind !== 'local') return {};
  const dir = target.address.replace(/\/+$/, '');
  // A sandbox host has no systemd; a unit file recorded in its host dir stands in for it.
  const unitFile = `${dir}/systemd/kafka.service`;
  return { config: `${dir}/config/server.properties`, ...(existsSync(unitFile) ? { unitFile } : {}) };
}

export async function probeHosts(executor: Executor, targets: HostTarget[], opts: ProbeHostsOptions = {}): Promise<HostProbeOutcome[]> {
  if (targets.length === 0) return [];
  const base: Omit<ScriptRun, 'params'> = {
    script: 'probe',
    timeoutMs: opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    comment: (opts.comment ?? 'kafka-responder read-only host probe').slice(0, 100),
  };

  let executions: ExecutionResult[];
  try {
    if (executor.kind === 'local') {
      // Each sandbox host needs its own --config, so one run per target.
      executions = (await Promise.all(targets.map((t) => executor.run([t], { ...base, params: probeParams(executor, t) })))).flat();
    } else {
      executions = await executor.run(targets, { ...base, params: {} });
    }
  } catch (err) {
    // The transport itself failed (credentials, network): every host is unanswered.
    const message = `probe could not be sent: ${errorMessage(err)}`;
    return targets.map((t) => ({ brokerId: t.brokerId, ok: false, reason: 'unreachable', message, execution: null }));
  }

  return targets.map((target, i) => {
    const execution = executions[i];
    if (!execution) {
      return { brokerId: target.brokerId, ok: false, reason: 'failed', message: 'the executor returned no result for this host', execution: null };
    }
    return toOutcome(target, execution);
  });
}

const UNANSWERED = new Set(['Unreachable', 'Undeliverable', 'Delayed']);

export function toOutcome(target: HostTarget, execution: ExecutionResult): HostProbeOutcome {
  const brokerId = target.brokerId;
  if (UNANSWERED.has(execution.status)) {
    return { brokerId, ok: false, reason: 'unreachable', message: execution.detail ?? `host did not answer (${execution.status})`, execution };
  }
  if (execution.status !== 'Success') {
    return { brokerId, ok: false, reason: 'failed', message: execution.detail ?? `probe ended with status ${execution.status}`, execution };
  }
  try {
    const report = parseProbeOutput(execution.stdout, { truncated: execution.truncated });
    return { brokerId, ok: true, report, execution };
  } catch (err) {
    const message = err instanceof ProbeOutputError ? err.message : `unexpected error reading probe output: ${String(err)}`;
    return { brokerId, ok: false, reason: 'malformed', message, execution };
  }
}
