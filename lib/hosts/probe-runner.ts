// Runs the host probe on a set of brokers and turns each answer into a
// HostProbeOutcome. One host that does not answer, fails or prints garbage
// becomes an `ok: false` outcome; it never takes the other hosts down.

import { existsSync } from 'node:fs';
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
  // The sandbox keeps each broker's pid there: the probe need not read every process's command line.
  const pidFile = `${dir}/broker.pid`;
  return { config: `${dir}/config/server.properties`, ...(existsSync(unitFile) ? { unitFile } : {}), ...(existsSync(pidFile) ? { pidFile } : {}) };
}

export async function probeHosts(executor: Executor, targets: HostTarget[], opts: ProbeHostsOptions = {}): Promise<HostProbeOutcome[]> {
  if (targets.length === 0) return [];
  const base: Omit<ScriptRun, 'params'> = {
    script: 'probe',
    timeoutMs: opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    comment: (opts.comment ?? 'kafka-responder read-only host probe').slice(0, 100),
  };
  const unsent = (err: unknown): HostProbeOutcome[] => {
    // The transport itself failed (credentials, network): every host is unanswered.
    const message = `probe could not be sent: ${errorMessage(err)}`;
    return targets.map((t) => ({ brokerId: t.brokerId, ok: false, reason: 'unreachable', message, execution: null }));
  };
  const noResult = (target: HostTarget): HostProbeOutcome => ({ brokerId: target.brokerId, ok: false, reason: 'failed', message: 'the executor returned no result for this host', execution: null });

  // The scripts start first; the parser loads while they run.
  let runs: { targets: HostTarget[]; executions: Promise<ExecutionResult[]> }[];
  try {
    runs =
      executor.kind === 'local'
        ? // Each sandbox host needs its own --config, so one run per target.
          targets.map((t) => ({ targets: [t], executions: executor.run([t], { ...base, params: probeParams(executor, t) }) }))
        : [{ targets, executions: executor.run(targets, { ...base, params: {} }) }];
  } catch (err) {
    return unsent(err);
  }
  const parser = import('./probe-outcome.ts');
  parser.catch(() => {}); // a failure surfaces where an answer is read
  // Each run's answers are read as they arrive, not after the slowest.
  const answers = runs.map(async (run) => {
    const [executions, { toOutcome }] = await Promise.all([run.executions, parser]);
    return run.targets.map((target, i) => (executions[i] ? toOutcome(target, executions[i]) : noResult(target)));
  });
  try {
    return (await Promise.all(answers)).flat();
  } catch (err) {
    return unsent(err);
  }
}
