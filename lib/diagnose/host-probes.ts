// Starting the host probes of a diagnosis. Kept apart from run.ts, and light
// (the probe runner loads the parser of their answers while they run): a
// caller can start the probes first, in the same turn of the event loop, and
// load the rest of the diagnosis (checks, kafkajs) while the probes run in
// their own processes or on SSM.

import { probeHosts } from '../hosts/probe-runner.ts';
import { probeTimeoutWithin } from '../hosts/probe-start.ts';
import type { Executor, HostProbeOutcome, HostTarget } from '../hosts/types.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { ClusterTarget } from './target.ts';

export type ProbeHostsFn = (executor: Executor, targets: HostTarget[], opts: { timeoutMs: number }) => Promise<HostProbeOutcome[]>;

/** What the probes need of a diagnosis's input. */
export interface HostProbeInput {
  executor?: Executor | null;
  hostTargets?: HostTarget[];
  timeoutMs: number;
  probeHosts?: ProbeHostsFn;
}

/** The probe runner must never take the diagnosis down: a throw becomes a failed outcome per host. */
async function safeProbe(probe: ProbeHostsFn, executor: Executor, targets: HostTarget[], timeoutMs: number): Promise<HostProbeOutcome[]> {
  try {
    return await probe(executor, targets, { timeoutMs });
  } catch (err) {
    const message = `host probe failed: ${errorMessage(err)}`;
    return targets.map((t) => ({ brokerId: t.brokerId, ok: false as const, reason: 'failed' as const, message, execution: null }));
  }
}

/**
 * Starts the probes of every host target; null without host access or
 * targets. Never rejects. They get a little less time than the snapshot so
 * both finish inside the diagnosis's budget.
 */
export function startHostProbes(input: HostProbeInput): Promise<HostProbeOutcome[]> | null {
  const targets = input.hostTargets ?? [];
  if (!input.executor || targets.length === 0) return null;
  return safeProbe(input.probeHosts ?? probeHosts, input.executor, targets, probeTimeoutWithin(input.timeoutMs));
}

/** A diagnosis of the whole target (add `topic`, a shorter `timeoutMs` or test I/O). */
export function diagnosisInputFor(target: ClusterTarget) {
  return {
    cluster: target.name,
    connection: target.connection,
    executor: target.executor,
    hostTargets: target.hostTargets,
    timeoutMs: target.timeoutMs,
    ...(target.lagWindowMs !== undefined ? { lagWindowMs: target.lagWindowMs } : {}),
  };
}
