import { recordsOf } from './records-of.ts';
import {
  CancelCommandCommand,
  GetCommandInvocationCommand,
  InvalidCommandId,
  InvalidInstanceId,
  InvocationDoesNotExist,
  SendCommandCommand,
  SSMClient,
  type GetCommandInvocationCommandOutput,
} from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { probeHosts } from '../../lib/hosts/probe-runner.ts';
import { SsmExecutor } from '../../lib/hosts/ssm-executor.ts';
import type { HostTarget, ScriptRun } from '../../lib/hosts/types.ts';

const ssm = mockClient(SSMClient);
const client = new SSMClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });

/** Virtual clock: sleeping moves time, so deadlines are tested without waiting. */
function clock() {
  let t = 1_000_000;
  return { now: () => t, sleep: async (ms: number) => void (t += ms), sleeps: [] as number[] };
}
function executor(c = clock()) {
  return new SsmExecutor({ client, now: c.now, sleep: async (ms) => { c.sleeps.push(ms); await c.sleep(ms); } });
}
const id = (n: number) => `i-${n.toString(16).padStart(17, '0')}`;
const targets = (n: number): HostTarget[] => Array.from({ length: n }, (_, i) => ({ brokerId: i + 1, address: id(i + 1) }));
const run = (over: Partial<ScriptRun> = {}): ScriptRun => ({ script: 'probe', params: {}, timeoutMs: 20_000, comment: 'kafka-responder probe', ...over });
const invocation = (over: Partial<GetCommandInvocationCommandOutput>): GetCommandInvocationCommandOutput => ({
  $metadata: {},
  Status: 'Success',
  StatusDetails: 'Success',
  ResponseCode: 0,
  StandardOutputContent: 'ok',
  StandardErrorContent: '',
  ...over,
});

beforeEach(() => ssm.reset());

describe('SsmExecutor: sending', () => {
  it('sends 120 instances as 3 SendCommand calls of at most 50, with our own probe document and its parameters', async () => {
    let n = 0;
    ssm.on(SendCommandCommand).callsFake(() => ({ Command: { CommandId: `cmd-${++n}` } }));
    ssm.on(GetCommandInvocationCommand).callsFake((input: { InstanceId: string }) => invocation({ StandardOutputContent: `out ${input.InstanceId}` }));
    const results = await executor().run(targets(120), run({ comment: 'x'.repeat(150), params: { logBytes: '1000' }, timeoutMs: 15_500 }));

    const calls = ssm.commandCalls(SendCommandCommand);
    expect(calls.map((c) => c.args[0].input.InstanceIds?.length)).toEqual([50, 50, 20]);
    const input = calls[0]!.args[0].input;
    expect(input).toMatchObject({ DocumentName: 'kafka-responder-prod-probe', DocumentVersion: '$LATEST', MaxErrors: '100%', TimeoutSeconds: 30 });
    expect(input.Comment).toHaveLength(100);
    // Every parameter of the document, the optional ones empty; no command text at all.
    expect(input.Parameters).toEqual({ config: [''], systemdUnit: [''], unitFile: [''], pidFile: [''], logBytes: ['1000'], scanDeadline: [''], executionTimeout: ['16'] });
    expect(results).toHaveLength(120);
    expect(results.every((r) => r.status === 'Success')).toBe(true);
    expect(results[119]).toMatchObject({ target: { brokerId: 120 }, stdout: `out ${id(120)}`, commandId: 'cmd-3', exitCode: 0 });
  });

  it('refuses a target that is not an instance id without sending it', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm.on(GetCommandInvocationCommand).resolves(invocation({}));
    const results = await executor().run([{ brokerId: 1, address: 'i-0abc; rm -rf /' }, { brokerId: 2, address: id(2) }], run());
    expect(results[0]).toMatchObject({ status: 'Failed', detail: expect.stringContaining('not an EC2 instance id') });
    expect(results[1]!.status).toBe('Success');
    expect(ssm.commandCalls(SendCommandCommand)[0]!.args[0].input.InstanceIds).toEqual([id(2)]);
  });

  it('refuses a parameter its pattern does not allow, an unknown parameter and an unknown script, sending nothing', async () => {
    await expect(executor().run(targets(1), run({ params: { systemdUnit: "kafka.service'; reboot; '" } }))).rejects.toThrow(/refusing systemdUnit=.*must match/);
    await expect(executor().run(targets(1), run({ params: { commands: 'reboot' } }))).rejects.toThrow(/no parameter "commands"/);
    await expect(executor().run(targets(1), run({ script: 'AWS-RunShellScript' }))).rejects.toThrow(/no host script "AWS-RunShellScript"/);
    expect(ssm.commandCalls(SendCommandCommand)).toHaveLength(0);
  });

  it('sends a 249-character topic (Kafka\'s longest) to the replica-data document as one parameter', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm.on(GetCommandInvocationCommand).resolves(invocation({}));
    const topic = 't'.repeat(249);
    const c = clock();
    const ex = new SsmExecutor({ client, documentPrefix: 'kafka-responder-ci-', now: c.now, sleep: c.sleep });
    const [r] = await ex.run(targets(1), { script: 'replica-data', params: { kafkaBin: '/opt/kafka/bin', topic, partition: '7', logDirs: '/data/a,/data/b' }, timeoutMs: 20_000, comment: 'x' });
    expect(r!.status).toBe('Success');
    const input = ssm.commandCalls(SendCommandCommand)[0]!.args[0].input;
    expect(input.DocumentName).toBe('kafka-responder-ci-replica-data');
    expect(input.Parameters).toMatchObject({ topic: [topic], partition: ['7'], logDirs: ['/data/a,/data/b'] });
    await expect(ex.run(targets(1), { script: 'replica-data', params: { kafkaBin: '/opt/kafka/bin', topic: 't'.repeat(250), partition: '7', logDirs: '/d' }, timeoutMs: 20_000, comment: 'x' })).rejects.toThrow(/refusing topic/);
  });

  it('calls hosts SSM does not manage unreachable (InvalidInstanceId on send)', async () => {
    ssm.on(SendCommandCommand).rejects(new InvalidInstanceId({ message: 'Instances [[i-1]] not in a valid state', $metadata: {} }));
    const results = await executor().run(targets(2), run());
    expect(results.map((r) => r.status)).toEqual(['Unreachable', 'Unreachable']);
  });
});

describe('SsmExecutor: polling', () => {
  it('retries InvocationDoesNotExist right after sending, with short growing delays', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm
      .on(GetCommandInvocationCommand)
      .rejectsOnce(new InvocationDoesNotExist({ message: 'no invocation', $metadata: {} }))
      .rejectsOnce(new InvocationDoesNotExist({ message: 'no invocation', $metadata: {} }))
      .resolvesOnce(invocation({ Status: 'InProgress', StatusDetails: 'InProgress' }))
      .resolves(invocation({ StandardOutputContent: '{"ok":true}' }));
    const c = clock();
    const [r] = await executor(c).run(targets(1), run());
    expect(r).toMatchObject({ status: 'Success', stdout: '{"ok":true}', commandId: 'c1' });
    expect(ssm.commandCalls(GetCommandInvocationCommand)).toHaveLength(4);
    expect(c.sleeps).toEqual([250, 375, 563, 845]);
  });

  it.each([
    ['Cancelled', 'Cancelled', 'Cancelled', -1],
    ['TimedOut', 'Delivery Timed Out', 'Unreachable', -1],
    ['TimedOut', 'Execution Timed Out', 'TimedOut', -1],
    ['Failed', 'Undeliverable', 'Undeliverable', -1],
    ['Failed', 'Terminated', 'Failed', -1],
    ['Failed', 'Failed', 'Failed', 2],
  ] as const)('maps %s / %s to %s', async (Status, StatusDetails, expected, ResponseCode) => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm.on(GetCommandInvocationCommand).resolves(invocation({ Status, StatusDetails, ResponseCode, StandardOutputContent: '' }));
    const [r] = await executor().run(targets(1), run());
    expect(r!.status).toBe(expected);
    expect(r!.exitCode).toBe(ResponseCode === -1 ? null : ResponseCode);
    expect(r!.detail).toBeTruthy();
  });

  it('waits through Cancelling and Delayed', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm
      .on(GetCommandInvocationCommand)
      .resolvesOnce(invocation({ Status: 'Delayed', StatusDetails: 'Delayed' }))
      .resolvesOnce(invocation({ Status: 'Cancelling', StatusDetails: 'Cancelling' }))
      .resolves(invocation({ Status: 'Cancelled', StatusDetails: 'Cancelled', ResponseCode: -1 }));
    const [r] = await executor().run(targets(1), run());
    expect(r!.status).toBe('Cancelled');
  });

  it('marks output of exactly 24,000 characters as truncated', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm.on(GetCommandInvocationCommand).callsFake((input: { InstanceId: string }) =>
      invocation({ StandardOutputContent: input.InstanceId === id(1) ? 'x'.repeat(24_000) : 'x'.repeat(23_999) }),
    );
    const results = await executor().run(targets(2), run());
    expect(results.map((r) => r.truncated)).toEqual([true, false]);
  });

  it('gives up at the deadline: TimedOut while running, Delayed while undeliverable so far', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm.on(GetCommandInvocationCommand).callsFake((input: { InstanceId: string }) =>
      input.InstanceId === id(1)
        ? invocation({ Status: 'InProgress', StatusDetails: 'InProgress' })
        : input.InstanceId === id(2)
          ? invocation({ Status: 'Delayed', StatusDetails: 'Delayed' })
          : Promise.reject(new InvocationDoesNotExist({ message: 'never', $metadata: {} })),
    );
    const c = clock();
    const t0 = c.now();
    const results = await executor(c).run(targets(3), run({ timeoutMs: 5_000 }));
    expect(results.map((r) => r.status)).toEqual(['TimedOut', 'Delayed', 'TimedOut']);
    expect(results[2]!.detail).toMatch(/InvocationDoesNotExist/);
    // None of them is known to be over: each may still run (a cancel was sent and followed for 5 s).
    expect(results.map((r) => r.outcome)).toEqual(['may-still-be-running', 'may-still-be-running', 'may-still-be-running']);
    expect(c.now() - t0).toBe(5_000 + 5_000);
    expect(Math.max(...c.sleeps)).toBeLessThanOrEqual(1_500);
  });
});

describe('SsmExecutor: a command that outlives the wait is cancelled and followed to its final state', () => {
  const statuses = (...list: Partial<GetCommandInvocationCommandOutput>[]) => {
    let i = 0;
    ssm.on(GetCommandInvocationCommand).callsFake(() => invocation(list[Math.min(i++, list.length - 1)]!));
  };

  it('InProgress past the deadline: CancelCommand for that instance; still InProgress after it: may still be running, never "not sent"', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm.on(CancelCommandCommand).resolves({});
    statuses({ Status: 'InProgress', StatusDetails: 'InProgress' });
    const [r] = await executor().run(targets(1), run({ script: 'service-control', params: { action: 'stop', unit: 'kafka', logsDir: '-' }, timeoutMs: 5_000 }));
    expect(ssm.commandCalls(CancelCommandCommand).map((c) => c.args[0].input)).toEqual([{ CommandId: 'c1', InstanceIds: [id(1)] }]);
    expect(r).toMatchObject({ status: 'TimedOut', outcome: 'may-still-be-running', commandId: 'c1' });
    expect(r!.detail).toMatch(/still InProgress.*CancelCommand sent, not confirmed/);
  });

  it('InProgress, cancelled: interrupted (it may have done part of its work)', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm.on(CancelCommandCommand).resolves({});
    let cancelled = false;
    ssm.on(CancelCommandCommand).callsFake(() => ((cancelled = true), {}));
    ssm.on(GetCommandInvocationCommand).callsFake(() => invocation(cancelled ? { Status: 'Cancelled', StatusDetails: 'Cancelled', ResponseCode: -1 } : { Status: 'InProgress', StatusDetails: 'InProgress' }));
    const [r] = await executor().run(targets(1), run({ timeoutMs: 5_000 }));
    expect(r).toMatchObject({ status: 'Cancelled', outcome: 'interrupted' });
  });

  it('Pending (the agent never picked it up), cancelled: not delivered', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    let cancelled = false;
    ssm.on(CancelCommandCommand).callsFake(() => ((cancelled = true), {}));
    ssm.on(GetCommandInvocationCommand).callsFake(() => invocation(cancelled ? { Status: 'Cancelled', StatusDetails: 'Cancelled', ResponseCode: -1 } : { Status: 'Pending', StatusDetails: 'Pending' }));
    const [r] = await executor().run(targets(1), run({ timeoutMs: 5_000 }));
    expect(r).toMatchObject({ status: 'TimedOut', outcome: 'not-delivered' });
    expect(r!.detail).toMatch(/never started.*cancelled/);
  });

  it('finishes while being cancelled (CancelCommand refused: InvalidCommandId): its real result', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    let cancelled = false;
    ssm.on(CancelCommandCommand).callsFake(() => {
      cancelled = true;
      throw new InvalidCommandId({ message: 'command already finished', $metadata: {} });
    });
    ssm.on(GetCommandInvocationCommand).callsFake(() => invocation(cancelled ? { StandardOutputContent: 'issued=1\npid=42\n' } : { Status: 'InProgress', StatusDetails: 'InProgress' }));
    const [r] = await executor().run(targets(1), run({ timeoutMs: 5_000 }));
    expect(r).toMatchObject({ status: 'Success', outcome: 'completed', stdout: 'issued=1\npid=42\n' });
  });

  it('outcome of final states: completed, interrupted by SSM, or never delivered', async () => {
    const cases = [
      [{ Status: 'Success', StatusDetails: 'Success', ResponseCode: 0 }, 'completed'],
      [{ Status: 'Failed', StatusDetails: 'Failed', ResponseCode: 2 }, 'completed'],
      [{ Status: 'TimedOut', StatusDetails: 'Execution Timed Out', ResponseCode: -1 }, 'interrupted'],
      [{ Status: 'Failed', StatusDetails: 'Terminated', ResponseCode: -1 }, 'interrupted'],
      [{ Status: 'TimedOut', StatusDetails: 'Delivery Timed Out', ResponseCode: -1 }, 'not-delivered'],
      [{ Status: 'Failed', StatusDetails: 'Undeliverable', ResponseCode: -1 }, 'not-delivered'],
    ] as const;
    for (const [inv, outcome] of cases) {
      ssm.reset();
      ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
      ssm.on(GetCommandInvocationCommand).resolves(invocation(inv));
      const [r] = await executor().run(targets(1), run());
      expect(r!.outcome, JSON.stringify(inv)).toBe(outcome);
    }
    expect(ssm.commandCalls(CancelCommandCommand)).toHaveLength(0);
    ssm.reset();
    ssm.on(SendCommandCommand).rejects(new InvalidInstanceId({ message: 'not managed', $metadata: {} }));
    const [unsent] = await executor().run(targets(1), run());
    expect(unsent).toMatchObject({ status: 'Unreachable', outcome: 'not-delivered' });
    const [bad] = await executor().run([{ brokerId: 1, address: 'not-an-instance' }], run());
    expect(bad!.outcome).toBe('not-delivered');
  });
});

describe('probeHosts over SSM', () => {
  it('keeps good reports when other hosts are undeliverable or print garbage', async () => {
    const good = recordsOf({
      probeVersion: 2, hostname: 'h1', brokerId: 1, collectedAt: '2026-11-29T07:00:00Z', probeDurationMs: 1, kafkaVersion: null,
      process: { running: false, pid: null, startedAt: null, configPath: null, logsDir: null },
      logDirs: [], consumerOffsets: [],
      logs: { files: [], bytesRead: 0, lifecycle: [], unclean: [], recovery: [], loadProgress: [], corruptIndex: [], indexAppend: [], cleaner: [], unsupported: [], offsetsLoadErrors: [], shutdown: [], cleanerLog: [] },
      limits: { openFds: null, maxFds: null, mapCount: null, maxMapCount: null }, systemd: null, warnings: [],
    });
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm.on(GetCommandInvocationCommand).callsFake((input: { InstanceId: string }) => {
      if (input.InstanceId === id(1)) return invocation({ StandardOutputContent: good });
      if (input.InstanceId === id(2)) return invocation({ Status: 'Failed', StatusDetails: 'Undeliverable', ResponseCode: -1, StandardOutputContent: '' });
      return invocation({ StandardOutputContent: good.slice(0, 100) });
    });
    const ex = executor();
    const outcomes = await probeHosts(ex, targets(3));
    expect(outcomes.map((o) => [o.brokerId, o.ok, o.ok ? null : o.reason])).toEqual([
      [1, true, null],
      [2, false, 'unreachable'],
      [3, false, 'malformed'],
    ]);
    // A real host finds its own config: no arguments are sent.
    expect(ssm.commandCalls(SendCommandCommand)[0]!.args[0].input.DocumentName).toBe('kafka-responder-prod-probe');
  });

  it('turns a failed SendCommand (the AWS API, not the host) into failed outcomes', async () => {
    ssm.on(SendCommandCommand).rejects(new Error('getaddrinfo ENOTFOUND ssm.eu-west-1.amazonaws.com'));
    const outcomes = await probeHosts(executor(), targets(2));
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['failed', 'failed']);
  });
});

describe('SsmExecutor: throttling', () => {
  const throttling = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: {} });

  it('sends again after SendCommand is throttled, with growing waits, and gets the result', async () => {
    ssm.on(SendCommandCommand).rejectsOnce(throttling()).rejectsOnce(throttling()).resolves({ Command: { CommandId: 'c1' } });
    ssm.on(GetCommandInvocationCommand).resolves(invocation({ StandardOutputContent: 'fine' }));
    const c = clock();
    const [r] = await executor(c).run(targets(1), run());
    expect(r).toMatchObject({ status: 'Success', stdout: 'fine', commandId: 'c1' });
    expect(ssm.commandCalls(SendCommandCommand)).toHaveLength(3);
    // Two throttle waits (jittered, the second base twice the first) before the first poll.
    const [first, second] = c.sleeps;
    expect(first).toBeGreaterThanOrEqual(250);
    expect(first).toBeLessThan(500);
    expect(second).toBeGreaterThanOrEqual(500);
    expect(second).toBeLessThan(1000);
  });

  it('a SendCommand that stays throttled becomes failed outcomes naming the throttling, within the deadline', async () => {
    ssm.on(SendCommandCommand).rejects(throttling());
    const c = clock();
    const results = await executor(c).run(targets(2), run({ timeoutMs: 20_000 }));
    expect(results.map((r) => r.status)).toEqual(['Failed', 'Failed']);
    expect(results[0]!.detail).toMatch(/ThrottlingException/);
    expect(ssm.commandCalls(SendCommandCommand).length).toBeLessThanOrEqual(5);
  });

  it('keeps polling through throttled GetCommandInvocation calls, backing off harder', async () => {
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'c1' } });
    ssm
      .on(GetCommandInvocationCommand)
      .rejectsOnce(throttling())
      .rejectsOnce(new InvocationDoesNotExist({ message: 'no invocation', $metadata: {} }))
      .resolves(invocation({ StandardOutputContent: 'after throttling' }));
    const c = clock();
    const [r] = await executor(c).run(targets(1), run());
    expect(r).toMatchObject({ status: 'Success', stdout: 'after throttling' });
    // 250 first; throttled → doubled growth (375 → 750) instead of the usual 375.
    expect(c.sleeps).toEqual([250, 750, 1125]);
  });
});
