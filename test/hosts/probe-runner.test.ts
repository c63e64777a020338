import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LocalExecutor } from '../../lib/hosts/local-executor.ts';
import { loadProbeScript, probeParams } from '../../lib/hosts/probe-runner.ts';
import { toOutcome } from '../../lib/hosts/probe-outcome.ts';
import { SsmExecutor } from '../../lib/hosts/ssm-executor.ts';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { ExecutionResult } from '../../lib/hosts/types.ts';

describe('loadProbeScript', () => {
  it('joins probe.sh and its parts next to the module, in order', () => {
    const read = (f: string) => readFileSync(new URL(`../../lib/hosts/${f}`, import.meta.url), 'utf8');
    expect(loadProbeScript()).toBe(['probe.sh', 'probe-dirs.sh', 'probe-logs.sh', 'probe-report.sh'].map(read).join(''));
  });
});

describe('probeParams', () => {
  it('points a sandbox host at its own config and lets a real host find its own', () => {
    expect(probeParams(new LocalExecutor(), { brokerId: 1, address: '/home/k/sandbox/broker-1/' })).toEqual({ config: '/home/k/sandbox/broker-1/config/server.properties' });
    expect(probeParams(new SsmExecutor({ client: new SSMClient({ region: 'eu-west-1' }) }), { brokerId: 1, address: 'i-0123456789abcdef0' })).toEqual({});
  });
});

describe('toOutcome', () => {
  const exec = (over: Partial<ExecutionResult>): ExecutionResult => ({
    target: { brokerId: 4, address: 'i-0123456789abcdef0' }, status: 'Success', outcome: 'completed', exitCode: 0, stdout: '', stderr: '', truncated: false, commandId: 'c', durationMs: 5, ...over,
  });
  it.each([
    ['Unreachable', 'unreachable'],
    ['Undeliverable', 'unreachable'],
    ['Delayed', 'unreachable'],
    ['TimedOut', 'failed'],
    ['Cancelled', 'failed'],
    ['Failed', 'failed'],
  ] as const)('%s → %s', (status, reason) => {
    const o = toOutcome({ brokerId: 4, address: 'x' }, exec({ status, detail: 'why' }));
    expect(o).toMatchObject({ brokerId: 4, ok: false, reason, message: 'why' });
  });
  it('a truncated answer is malformed, with the reason', () => {
    const o = toOutcome({ brokerId: 4, address: 'x' }, exec({ stdout: 'probe\tvers', truncated: true }));
    expect(o).toMatchObject({ ok: false, reason: 'malformed', message: expect.stringContaining('cut') });
  });
});
