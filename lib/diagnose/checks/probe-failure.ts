// host-unreachable and probe-error: a host that did not answer the probe, or
// answered with something unreadable. A report on the probe, not a check (isCheck: false).

import type { Check, CheckInput } from './check.ts';
import type { Evidence, Finding } from '../types.ts';
import { makeFinding } from '../finding.ts';

// The finding kinds this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'host-unreachable': true;
    /** Not a cluster symptom: the probe answered with something we could not read. */
    'probe-error': true;
  }
}

function probeFailures({ probes }: CheckInput): Finding[] {
  const findings: Finding[] = [];
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
    if (o.reason === 'malformed') {
      findings.push(
        makeFinding({
          kind: 'probe-error',
          severity: 'error',
          title: `Host probe of broker ${o.brokerId} (${where}) returned unreadable output`,
          summary: `The probe ran on ${where} but its output could not be parsed${exec?.truncated ? ' (the transport truncated it)' : ''}: host checks for broker ${o.brokerId} are missing from this report.`,
          brokers: [o.brokerId],
          evidence,
          identity: [`broker:${o.brokerId}`],
          nextActions: ['Run the probe by hand on the host and check its output; report a bug with it.'],
        }),
      );
    } else {
      findings.push(
        makeFinding({
          kind: 'host-unreachable',
          severity: 'error',
          title: `Host of broker ${o.brokerId} (${where}) did not answer the probe`,
          summary: `The host probe for broker ${o.brokerId} ${o.reason === 'unreachable' ? 'could not reach the host' : 'failed'}: its host checks are missing from this report. If the broker is also down, the host itself may be gone.`,
          brokers: [o.brokerId],
          evidence,
          identity: [`broker:${o.brokerId}`],
          nextActions: ['Check the instance (EC2 status checks, SSM agent) or the sandbox host directory.'],
        }),
      );
    }
  }
  return findings;
}

/** A host that did not answer, or answered with something unreadable: a report on the probe, not a check. */
export const probeFailuresCheck: Check = { kinds: ['host-unreachable', 'probe-error'], needs: ['hosts'], isCheck: false, detect: probeFailures };
