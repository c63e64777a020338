// Starting the host probe's runs, apart from reading their answers (probe-runner.ts):
// the CLI starts them before it loads anything else (lib/cli/early-probes.ts),
// with exactly the runs the diagnosis would start, so that it can take them over.

import { existsSync } from 'node:fs';
import type { ExecutionResult, Executor, HostTarget, ScriptRun } from './types.ts';

export interface ProbeHostsOptions {
  /** Per host, end to end (SSM: delivery + run + polls). Default 25 s. */
  timeoutMs?: number;
  comment?: string;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 25_000;

/** A diagnosis's probes get a little less time than its snapshot, so both finish inside its budget. */
export const probeTimeoutWithin = (diagnosisTimeoutMs: number): number => Math.max(1000, Math.floor(diagnosisTimeoutMs * 0.9));

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

export interface ProbeRun {
  targets: HostTarget[];
  executions: Promise<ExecutionResult[]>;
}

/** Starts the probe on every target (throws only when the executor cannot even start). */
export function startProbeRuns(executor: Executor, targets: HostTarget[], opts: ProbeHostsOptions = {}): ProbeRun[] {
  const base: Omit<ScriptRun, 'params'> = {
    script: 'probe',
    timeoutMs: opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    comment: (opts.comment ?? 'kafka-responder read-only host probe').slice(0, 100),
  };
  return executor.kind === 'local'
    ? // Each sandbox host needs its own --config, so one run per target.
      targets.map((t) => ({ targets: [t], executions: executor.run([t], { ...base, params: probeParams(executor, t) }) }))
    : [{ targets, executions: executor.run(targets, { ...base, params: {} }) }];
}
