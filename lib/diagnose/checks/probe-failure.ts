// host-unreachable and probe-error: a host that did not answer the probe, or
// answered with something unreadable. A report on the probe, not a check (isCheck: false).

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import type { Evidence } from '../types.ts';

// The finding kinds this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'host-unreachable': true;
    /** Not a cluster symptom: the probe answered with something we could not read. */
    'probe-error': true;
  }
}

/** What the renderer words: the broker, where the probe ran, and how it failed. */
type Facts = { brokerId: number; where: string } & ({ failure: 'malformed'; truncated: boolean } | { failure: 'unreachable' | 'failed' });

function detect({ probes }: CheckInput): Detected<Facts>[] {
  const out: Detected<Facts>[] = [];
  for (const o of probes) {
    if (o.ok) continue;
    const exec = o.execution;
    const evidence: Evidence[] = [{ label: 'reason', value: o.message, source: `broker:${o.brokerId}` }];
    if (exec) {
      evidence.push({ label: 'status', value: `${exec.status}${exec.exitCode !== null ? ` exit=${exec.exitCode}` : ''}${exec.detail ? `: ${exec.detail}` : ''}`, source: exec.target.address });
      if (exec.stderr) evidence.push({ label: 'stderr', value: exec.stderr.slice(0, 500), source: exec.target.address });
      if (o.reason === 'malformed' && exec.stdout) evidence.push({ label: 'stdout (start)', value: exec.stdout.slice(0, 300), source: exec.target.address });
    }
    const where = exec?.target.address ?? `broker ${o.brokerId}`;
    const kind = o.reason === 'malformed' ? 'probe-error' : 'host-unreachable';
    out.push({
      finding: { kind, severity: 'error', brokers: [o.brokerId], evidence, identity: [`broker:${o.brokerId}`] },
      facts:
        o.reason === 'malformed'
          ? { brokerId: o.brokerId, where, failure: 'malformed', truncated: exec?.truncated === true }
          : { brokerId: o.brokerId, where, failure: o.reason === 'unreachable' ? 'unreachable' : 'failed' },
    });
  }
  return out;
}

function render(facts: Facts): FindingProse {
  const { brokerId, where } = facts;
  if (facts.failure === 'malformed') {
    return {
      title: `Host probe of broker ${brokerId} (${where}) returned unreadable output`,
      summary: `The probe ran on ${where} but its output could not be parsed${facts.truncated ? ' (the transport truncated it)' : ''}: host checks for broker ${brokerId} are missing from this report.`,
      nextActions: ['Run the probe by hand on the host and check its output; report a bug with it.'],
    };
  }
  return {
    title: `Host of broker ${brokerId} (${where}) did not answer the probe`,
    summary: `The host probe for broker ${brokerId} ${facts.failure === 'unreachable' ? 'could not reach the host' : 'failed'}: its host checks are missing from this report. If the broker is also down, the host itself may be gone.`,
    nextActions: ['Check the instance (EC2 status checks, SSM agent) or the sandbox host directory.'],
  };
}

/** A host that did not answer, or answered with something unreadable: a report on the probe, not a check. */
export const probeFailuresCheck: Check = { kinds: ['host-unreachable', 'probe-error'], needs: ['hosts'], isCheck: false, detect: (input) => detect(input).map((d) => renderFinding(d, render)) };
