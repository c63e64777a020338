// Broker restarts: the pure planner (order, refusals that teach) and the steps
// against a scripted host (stop bound, clean-shutdown marker, pause/resume).
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config/schema.ts';
import { assessRestart } from '../../lib/diagnose/can-restart.ts';
import type { ServiceStatus } from '../../lib/hosts/service-control.ts';
import type { ProbeReport } from '../../lib/hosts/types.ts';
import { OperationError } from '../../lib/operations/failures.ts';
import { restartBrokers } from '../../lib/operations/kinds/restart-brokers/index.ts';
import { planRestart, restartOrder, runRestartStep, type RestartFacts, type RestartIo, type RestartStep, type RestartStepContext } from '../../lib/operations/kinds/restart-brokers/plan.ts';
import { parseOpsCommand } from '../../lib/operations/slack.ts';
import type { KafkaAdmin } from '../../lib/kafka/admin.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { codes, plan, reason, refusal, snapshot, warningLines } from './plan-fixtures.ts';

const parseRestart = (args: string[], config: ReturnType<typeof parseConfig>) => parseOpsCommand('restart', args, config);
const parseRollingRestart = (args: string[], config: ReturnType<typeof parseConfig>) => parseOpsCommand('rolling-restart', args, config);

/** The class and code a step threw. */
async function failureOf(p: Promise<unknown>): Promise<{ failure: string; code: string; notice: Record<string, unknown> }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OperationError) return { failure: err.failure, code: err.notice.code, notice: err.notice };
    throw err;
  }
  throw new Error('expected the step to fail');
}

const service = { unit: 'kafka', stopBoundSeconds: 60, readyTimeoutSeconds: 300 };
const host = { unit: 'kafka', logsDir: '/var/log/kafka', logDirs: ['/data/kafka'] };
const facts = (ids: number[], extra: Partial<RestartFacts> = {}): RestartFacts[] =>
  ids.map((brokerId) => ({ brokerId, probe: null, lastShutdownSeconds: 12.5, systemdStopTimeoutSeconds: 90, pid: 1000 + brokerId, host, ...extra }));

// RF 3 everywhere; broker 3 leads the most partitions, broker 1 leads __consumer_offsets-0.
const healthy = snapshot([1, 2, 3], {
  orders: [[3, [3, 1, 2], [3, 1, 2]], [3, [3, 2, 1], [3, 2, 1]], [2, [2, 3, 1], [2, 3, 1]]],
  __consumer_offsets: [[1, [1, 2, 3], [1, 2, 3]], [2, [2, 3, 1], [2, 3, 1]]],
});

describe('restart planning', () => {
  it('restarts the broker leading the most partitions last, the others by fewest leaders first', () => {
    const p = plan(planRestart(healthy, { brokers: [], rolling: true, service, facts: facts([1, 2, 3]), assess: assessRestart, activeControllerId: null }));
    expect(p.kind === 'restart-brokers' && p.params.brokers).toEqual([1, 2, 3]);
    expect(restartOrder([1, 2, 3], new Map([[1, 5], [2, 1], [3, 2]]), null)).toEqual([2, 3, 1]);
    // ZooKeeper mode: the active controller goes last whatever it leads.
    expect(restartOrder([1, 2, 3], new Map([[1, 5], [2, 1], [3, 2]]), 2)).toEqual([3, 1, 2]);
  });

  it('plans, per broker in order, a live check, a bounded graceful stop, a start and a wait until it is back', () => {
    const p = plan(planRestart(healthy, { brokers: [], rolling: true, service, facts: facts([1, 2, 3]), assess: assessRestart, activeControllerId: null }));
    expect(p.steps.map((s) => `${s.action}:${'broker' in s ? s.broker : ''}`)).toEqual(
      [1, 2, 3].flatMap((b) => [`restart-check:${b}`, `stop-broker:${b}`, `start-broker:${b}`, `wait-broker-ready:${b}`]),
    );
    const stop = p.steps.find((s) => s.action === 'stop-broker');
    expect(stop?.action === 'stop-broker' && stop.boundSeconds).toBe(60);
    const restarts = p.impact.restarts!;
    expect(restarts.map((r) => [r.brokerId, r.verdict, r.lastShutdownSeconds, r.systemdStopTimeoutSeconds])).toEqual([
      [1, 'yes', 12.5, 90],
      [2, 'yes', 12.5, 90],
      [3, 'yes', 12.5, 90],
    ]);
    expect(restarts.find((r) => r.brokerId === 1)!.offsetsPartitionsLed).toEqual([0]);
    expect(restarts.find((r) => r.brokerId === 3)!.offsetsPartitionsLed).toEqual([]);
  });

  it('refuses a restart that would take partitions offline, naming them and the fix', () => {
    const s = snapshot([1, 2, 3], { 'logs-rf1': [[2, [2], [2]], [2, [2], [2]]], orders: [[1, [1, 2, 3], [1, 2, 3]]] });
    const refused = planRestart(s, { brokers: [2], rolling: false, service, facts: facts([2]), assess: assessRestart, activeControllerId: null });
    expect(refusal(refused)).toEqual({ code: 'restart-would-go-offline', brokers: [{ broker: 2, partitions: { names: ['logs-rf1-0', 'logs-rf1-1'], total: 2 } }] });
    const why = reason(refused);
    expect(why).toMatch(/broker 2: 2 partitions would go offline \(logs-rf1-0 and logs-rf1-1\)/);
    expect(why).toContain('logs-rf1-0');
    expect(why).toContain('logs-rf1-1');
    expect(why).toMatch(/drain/);
    expect(why).toMatch(/replication factor/);
    // A rolling restart touching that broker is refused the same way.
    expect(reason(planRestart(s, { brokers: [], rolling: true, service, facts: facts([1, 2, 3]), assess: assessRestart, activeControllerId: null }))).toContain('logs-rf1-0');
  });

  it('refuses a broker that is still recovering logs', () => {
    const probe = { recoveryInProgress: true, consumerOffsets: [], process: { running: true, pid: 1 }, logs: { uncleanShutdownRecovery: [] } } as unknown as ProbeReport;
    const why = reason(planRestart(healthy, { brokers: [1], rolling: false, service, facts: facts([1], { probe }), assess: assessRestart, activeControllerId: null }));
    expect(why).toMatch(/still recovering logs/);
    expect(refusal(planRestart(healthy, { brokers: [1], rolling: false, service, facts: facts([1], { probe }), assess: assessRestart, activeControllerId: null }))).toEqual({ code: 'restart-recovering', brokers: [1] });
  });

  it('warns when the stop bound is not longer than systemd\'s stop timeout', () => {
    const p = plan(planRestart(healthy, { brokers: [1], rolling: false, service, facts: facts([1], { systemdStopTimeoutSeconds: 120 }), assess: assessRestart, activeControllerId: null }));
    expect(p.warnings).toContainEqual({ code: 'stop-bound-not-longer', broker: 1, bound: 60, timeout: 120 });
    expect(warningLines(p).join('\n')).toMatch(/not longer than systemd's TimeoutStopSec \(120 s\)/);
  });

  it('takes one broker for restart and only live brokers', () => {
    expect(refusal(planRestart(healthy, { brokers: [1, 2], rolling: false, service, facts: facts([1, 2]), assess: assessRestart, activeControllerId: null }))).toEqual({ code: 'restart-one-broker' });
    expect(reason(planRestart(healthy, { brokers: [7], rolling: false, service, facts: [], assess: assessRestart, activeControllerId: null }))).toMatch(/broker 7 is not a live broker/);
  });
});

// ---------------------------------------------------------------- steps against a scripted host

function scriptedHost(statuses: Partial<ServiceStatus>[], verdicts: ('yes' | 'no')[] = ['yes']) {
  const calls: string[] = [];
  let i = 0;
  let v = 0;
  const io: RestartIo = {
    assess: () => {
      const verdict = verdicts[Math.min(v++, verdicts.length - 1)]!;
      return { verdict, reasons: verdict === 'no' ? ['2 partitions would fall below min.insync.replicas.'] : [], wouldGoOffline: [], recovering: false };
    },
    probe: async () => null,
    service: async (_b, call) => {
      calls.push(call.action);
      return { ok: true, stdout: call.action === 'release' ? 'released=1\n' : '', detail: '', execution: null };
    },
    status: async () => ({ state: 'active', pid: 42, markers: [], timeoutStopRaw: null, ...statuses[Math.min(i++, statuses.length - 1)] }),
  };
  return { io, calls };
}

function ctxFor(io: RestartIo, over: Partial<RestartStepContext> = {}): RestartStepContext {
  return {
    restart: io,
    snapshot: async () => healthy,
    progress: undefined,
    stepStartedAt: 0,
    resumedFrom: null,
    now: () => 10_000,
    ...over,
  };
}

const stop: RestartStep = { action: 'stop-broker', description: '', broker: 1, boundSeconds: 30, host };

describe('restart steps', () => {
  it('asks for a graceful stop once, then waits for the process to exit, within the bound', async () => {
    const { io, calls } = scriptedHost([{ pid: 42 }]);
    const first = await runRestartStep(stop, ctxFor(io));
    expect(first).toMatchObject({ status: 'waiting', data: { issuedAt: 10_000, pid: 42 } });
    const later = await runRestartStep(stop, ctxFor(io, { progress: { issuedAt: 10_000, pid: 42 }, now: () => 25_000 }));
    expect(later.status).toBe('waiting');
    expect(calls).toEqual(['stop']);
  });

  it('past the bound it needs a human: the run pauses (Resume waits another bound), nothing is killed', async () => {
    const { io, calls } = scriptedHost([{ pid: 42, state: 'deactivating' }]);
    expect(await failureOf(runRestartStep(stop, ctxFor(io, { progress: { issuedAt: 10_000, pid: 42 }, now: () => 41_000 })))).toMatchObject({
      failure: 'needs-human',
      notice: { code: 'stop-overran', broker: 1, seconds: 31, bound: 30, pid: 42 },
    });
    // Resumed: waits another 30 s from now.
    const resumed = await runRestartStep(stop, ctxFor(io, { progress: { issuedAt: 10_000, pid: 42 }, now: () => 50_000, resumedFrom: 'stop-overran' }));
    expect(resumed).toMatchObject({ status: 'waiting', data: { issuedAt: 10_000, boundFrom: 50_000 } });
    expect(calls).toEqual([]);
  });

  it('a stop the host did not confirm is retried (transient), never reported as not sent', async () => {
    const { io } = scriptedHost([{ pid: 42 }]);
    io.service = async () => ({ ok: false, stdout: '', detail: 'stop on broker 1\'s host: TimedOut', execution: null });
    expect(await failureOf(runRestartStep(stop, ctxFor(io)))).toMatchObject({ failure: 'transient', code: 'stop-not-confirmed' });
  });

  it('once stopped, needs the clean-shutdown marker in every visible log dir (or an approver\'s Resume)', async () => {
    const clean = scriptedHost([{ pid: null, state: 'inactive', markers: [{ dir: '/data/kafka', present: true }] }]);
    expect(await runRestartStep(stop, ctxFor(clean.io, { progress: { issuedAt: 10_000 }, now: () => 14_000 }))).toMatchObject({ status: 'done', data: { stopSeconds: 4 } });
    const unclean = scriptedHost([{ pid: null, state: 'inactive', markers: [{ dir: '/data/kafka', present: false }] }]);
    expect(await failureOf(runRestartStep(stop, ctxFor(unclean.io, { progress: { issuedAt: 10_000 } })))).toMatchObject({ failure: 'needs-human', notice: { code: 'no-clean-shutdown-marker', dirs: ['/data/kafka'] } });
    expect(await runRestartStep(stop, ctxFor(unclean.io, { progress: { issuedAt: 10_000 }, resumedFrom: 'no-clean-shutdown-marker' }))).toMatchObject({ status: 'done' });
  });

  it('a live "no" needs a human (the runner pauses with Resume and Cancel); checked again when resumed', async () => {
    const check: RestartStep = { action: 'restart-check', description: '', broker: 1 };
    const { io } = scriptedHost([{}], ['no', 'yes']);
    const paused = await failureOf(runRestartStep(check, ctxFor(io)));
    expect(paused).toMatchObject({ failure: 'needs-human', code: 'restart-unsafe', notice: { broker: 1 } });
    expect((paused.notice.reasons as string[]).join()).toMatch(/min.insync.replicas/);
    expect(await runRestartStep(check, ctxFor(io, { resumedFrom: 'restart-unsafe' }))).toMatchObject({ status: 'done' });
  });

  it('waits until the broker is back in the ISR of every partition it hosts', async () => {
    const ready: RestartStep = { action: 'wait-broker-ready', description: '', broker: 1, timeoutSeconds: 60, host };
    const { io } = scriptedHost([{}]);
    const lagging = snapshot([1, 2, 3], { orders: [[2, [1, 2, 3], [2, 3]]] });
    expect(await runRestartStep(ready, ctxFor(io, { snapshot: async () => lagging }))).toMatchObject({ status: 'waiting', progress: expect.stringMatching(/out of the ISR of 1 partition \(orders-0\)/) });
    expect(await failureOf(runRestartStep(ready, ctxFor(io, { snapshot: async () => lagging, now: () => 61_000 })))).toMatchObject({ failure: 'fatal', notice: { code: 'broker-not-back', seconds: 61 } });
    expect(await runRestartStep(ready, ctxFor(io))).toMatchObject({ status: 'done' });
  });
});

describe('restart commands', () => {
  const config = parseConfig({
    clusters: [{ name: 'prod', bootstrap: ['k:9092'], hosts: { executor: 'ssm', instances: { '1': 'i-0123456789abcdef0' } } }],
    slack: { allowEveryone: true, incidentChannel: 'C0INC' },
  });
  it('restart takes one broker id, rolling-restart an optional --brokers list', () => {
    expect(parseRestart(['2'], config)).toMatchObject({ request: { kind: 'restart-brokers', brokers: [2], rolling: false } });
    expect(parseRestart(['2', '3'], config)).toMatchObject({ error: expect.stringMatching(/exactly one broker/) });
    expect(parseRestart(['two'], config)).toHaveProperty('error');
    expect(parseRollingRestart([], config)).toMatchObject({ request: { brokers: [], rolling: true } });
    expect(parseRollingRestart(['prod', '--brokers', '3,1,2'], config)).toMatchObject({ request: { brokers: [3, 1, 2] }, cluster: { name: 'prod' } });
    expect(parseRollingRestart(['--brokers=1,1'], config)).toMatchObject({ error: expect.stringMatching(/appears twice/) });
    expect(parseRollingRestart(['--brokers', '1;reboot'], config)).toHaveProperty('error');
  });
  it('the systemd unit comes from the cluster config, checked strictly', () => {
    const cluster = config.clusters[0]!;
    expect(cluster.hosts.executor === 'ssm' && cluster.hosts.service).toEqual({ unit: 'kafka', stopBoundSeconds: 900, readyTimeoutSeconds: 3600 });
    expect(() => parseConfig({ ...config, clusters: [{ name: 'x', bootstrap: ['k:9092'], hosts: { executor: 'ssm', instances: {}, service: { unit: 'kafka;reboot' } } }] })).toThrow(/unit/);
  });
});

describe('a restart that ends early: its compensation', () => {
  const p = plan(planRestart(healthy, { brokers: [1], rolling: false, service, facts: facts([1]), assess: assessRestart, activeControllerId: null })) as Plan;
  const admin = {} as KafkaAdmin;
  const ledger = { get: async () => null };
  const run = (cursor: number, progress?: Record<string, unknown>) => ({ cursor, checked: true, startedAt: 0, stepStartedAt: 0, invocations: 1, ...(progress ? { progress: { text: '', at: 0, data: progress } } : {}) });
  const settle = (io: RestartIo, cursor: number, status: 'CANCELLED' | 'FAILED' | 'STALE' = 'CANCELLED', progress?: Record<string, unknown>, leaveStopped = false) =>
    restartBrokers.compensate({ plan: p, status, run: run(cursor, progress), admin, capabilities: { restart: io }, ledger, done: {}, leaveStopped });

  it('cancelled between stop and start: starts the broker (which also removes the drop-in)', async () => {
    const { io, calls } = scriptedHost([{ pid: null, state: 'inactive' }]);
    expect(await settle(io, 2)).toEqual({ notices: [{ code: 'broker-started', broker: 1 }], complete: true, done: { brokerSettled: true } });
    expect(calls).toEqual(['start']);
  });

  it('failed while its old process is still stopping: owes the start (the sweep retries) and never kills it', async () => {
    const { io, calls } = scriptedHost([{ pid: 42, state: 'deactivating' }]);
    expect(await settle(io, 1, 'FAILED', { issuedAt: 1, pid: 42 })).toMatchObject({ notices: [{ code: 'broker-still-stopping', broker: 1, pid: 42 }], complete: false });
    expect(calls).toEqual([]);
    // Exited: the sweep's next attempt starts it.
    const exited = scriptedHost([{ pid: null, state: 'inactive' }]);
    expect(await settle(exited.io, 1, 'FAILED', { issuedAt: 1, pid: 42 })).toMatchObject({ notices: [{ code: 'broker-started' }], complete: true });
  });

  it('a failed start is owed until it works; "leave stopped" chosen in the thread leaves it', async () => {
    const { io } = scriptedHost([{ pid: null, state: 'inactive' }]);
    io.service = async () => ({ ok: false, stdout: '', detail: 'start on broker 1\'s host: Failed', execution: null });
    expect(await settle(io, 2, 'FAILED')).toMatchObject({ notices: [{ code: 'broker-not-restarted', broker: 1 }], complete: false });
    const left = scriptedHost([{ pid: null, state: 'inactive' }]);
    expect(await settle(left.io, 2, 'CANCELLED', undefined, true)).toEqual({ notices: [{ code: 'broker-left-stopped', broker: 1 }], complete: true, done: { brokerSettled: true } });
    // Left stopped, never started, but the drop-in that disabled the stop timeout and SIGKILL is removed.
    expect(left.calls).toEqual(['release']);
    // Still stopping when "leave stopped" was chosen: nothing is released under a running stop; owed until it has exited.
    const stopping = scriptedHost([{ pid: 42, state: 'deactivating' }]);
    expect(await settle(stopping.io, 1, 'CANCELLED', { issuedAt: 1, pid: 42 }, true)).toMatchObject({ notices: [{ code: 'broker-still-stopping', broker: 1 }], complete: false });
    expect(stopping.calls).toEqual([]);
  });

  it('nothing to do before a stop or after success; a running broker only gets its drop-in removed', async () => {
    const { io, calls } = scriptedHost([{ pid: 77, state: 'active' }]);
    expect(await settle(io, 0)).toEqual({ notices: [], complete: true, done: {} });
    expect(await restartBrokers.compensate({ plan: p, status: 'SUCCEEDED', run: run(4), admin, capabilities: { restart: io }, ledger, done: {}, leaveStopped: false })).toEqual({ notices: [], complete: true, done: {} });
    expect(await settle(io, 3, 'FAILED')).toMatchObject({ notices: [{ code: 'broker-running' }], complete: true });
    expect(calls).toEqual(['start']);
    // systemd's 90 s stop timeout against the 60 s bound: said once, as a code.
    expect(codes(p)).toEqual(['stop-bound-not-longer']);
  });
});
