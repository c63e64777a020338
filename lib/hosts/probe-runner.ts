// Runs the host probe on a set of brokers and turns each answer into a
// HostProbeOutcome. One host that does not answer, fails or prints garbage
// becomes an `ok: false` outcome; it never takes the other hosts down.

import type { Executor, HostProbeOutcome, HostTarget } from './types.ts';
import { errorMessage } from '../runtime/errors.ts';
import { startProbeRuns, type ProbeHostsOptions, type ProbeRun } from './probe-start.ts';

export { loadProbeScript } from './scripts.ts';
export { DEFAULT_PROBE_TIMEOUT_MS, probeParams, type ProbeHostsOptions } from './probe-start.ts';

export async function probeHosts(executor: Executor, targets: HostTarget[], opts: ProbeHostsOptions = {}): Promise<HostProbeOutcome[]> {
  if (targets.length === 0) return [];
  const unsent = (err: unknown): HostProbeOutcome[] => {
    // The transport itself failed (credentials, network): every host is unanswered.
    const message = `probe could not be sent: ${errorMessage(err)}`;
    return targets.map((t) => ({ brokerId: t.brokerId, ok: false, reason: 'unreachable', message, execution: null }));
  };
  const noResult = (target: HostTarget): HostProbeOutcome => ({ brokerId: target.brokerId, ok: false, reason: 'failed', message: 'the executor returned no result for this host', execution: null });

  // The scripts start first; the parser loads while they run.
  let runs: ProbeRun[];
  try {
    runs = startProbeRuns(executor, targets, opts);
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
