// One host's answer to the probe as a HostProbeOutcome: a host that does not
// answer, fails or prints garbage becomes `ok: false`, never a throw.

import { parseProbeOutput, ProbeOutputError } from './probe-output.ts';
import type { ExecutionResult, HostProbeOutcome, HostTarget } from './types.ts';

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
