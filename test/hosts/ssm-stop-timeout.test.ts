// A broker stop whose SSM command outlives the wait (GetCommandInvocation says
// InProgress, then TimedOut is ours to decide): the command is cancelled, and
// the restart's stop step never says the stop was not sent. It reports "may be
// stopping" and records the stop time, so the run's compensation waits for it.
// SSM contract-tested with aws-sdk-client-mock; the real restart step on top.
import { CancelCommandCommand, GetCommandInvocationCommand, SendCommandCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { mayHaveRun, parseServiceStatus, runServiceControl } from '../../lib/hosts/service-control.ts';
import { SsmExecutor } from '../../lib/hosts/ssm-executor.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import { runRestartStep, type RestartIo, type RestartStep } from '../../lib/operations/kinds/restart-brokers/plan.ts';

const ssm = mockClient(SSMClient);
const client = new SSMClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
const INSTANCE = 'i-0123456789abcdef0';
const host = { unit: 'kafka', logsDir: null, logDirs: ['/data/kafka'] };
const stop: RestartStep = { action: 'stop-broker', description: '', broker: 1, boundSeconds: 120, host };

function restartIo(): RestartIo {
  let t = 0;
  const executor = new SsmExecutor({ client, now: () => t, sleep: async (ms) => void (t += ms) });
  const target = { brokerId: 1, address: INSTANCE };
  return {
    assess: () => ({ verdict: 'yes', reasons: [], wouldGoOffline: [], recovering: false }),
    probe: async () => null,
    service: (_b, call) => runServiceControl(executor, target, call),
    status: async () => ({ state: 'active', pid: 42, markers: [], timeoutStopRaw: null }),
  };
}

const ctx = (io: RestartIo, now = 10_000) => ({
  restart: io,
  snapshot: async () => ({}) as ClusterSnapshot,
  progress: undefined,
  stepStartedAt: 0,
  resumedFrom: null,
  now: () => now,
});

beforeEach(() => {
  ssm.reset();
  ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'cmd-stop' } });
});

describe('a broker stop whose SSM command times out', () => {
  it('InProgress past the wait: cancelled; the step says "may be stopping", records the stop time, and the leftover warns', async () => {
    ssm.on(GetCommandInvocationCommand).resolves({ Status: 'InProgress', StatusDetails: 'InProgress' });
    ssm.on(CancelCommandCommand).resolves({});
    const outcome = await runRestartStep(stop, ctx(restartIo()));
    expect(ssm.commandCalls(CancelCommandCommand).map((c) => c.args[0].input)).toEqual([{ CommandId: 'cmd-stop', InstanceIds: [INSTANCE] }]);
    expect(outcome).toMatchObject({ status: 'waiting', progress: expect.stringMatching(/broker 1 may be stopping/), data: { issuedAt: 10_000, pid: 42 } });
  });

  it('a stop SSM never delivered (cancelled while Pending) is reported as not sent', async () => {
    let cancelled = false;
    ssm.on(CancelCommandCommand).callsFake(() => ((cancelled = true), {}));
    ssm.on(GetCommandInvocationCommand).callsFake(() => (cancelled ? { Status: 'Cancelled', StatusDetails: 'Cancelled' } : { Status: 'Pending', StatusDetails: 'Pending' }));
    // Known not sent: safe to ask again (a transient failure, retried), never "may be stopping".
    await expect(runRestartStep(stop, ctx(restartIo()))).rejects.toMatchObject({ failure: 'transient', notice: { code: 'stop-not-confirmed', broker: 1 } });
  });

  it('mayHaveRun: only a command that never reached the host, or ran to its own end, is known', async () => {
    ssm.on(GetCommandInvocationCommand).resolves({ Status: 'Failed', StatusDetails: 'Failed', ResponseCode: 64, StandardErrorContent: 'bad unit name' });
    const r = await restartIo().service(1, { action: 'stop', unit: 'kafka', logsDir: null, logDirs: [] });
    expect(r.ok).toBe(false);
    expect(mayHaveRun(r)).toBe(false);
    expect(parseServiceStatus(r.stdout).pid).toBeNull();
  });
});
