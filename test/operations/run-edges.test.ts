// The edge states around a run's happy path (issue: operations, each one a
// unit), each reproduced on the runner with approvals on dynalite and the
// cluster scripted (FakeCluster) so timing is exact. The same on real Kafka:
// compensation.int.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalService } from '../../lib/approvals/service.ts';
import type { ServiceCall, ServiceStatus } from '../../lib/hosts/service-control.ts';
import { planDrain } from '../../lib/operations/kinds/drain-broker/index.ts';
import { leaderOverride } from '../../lib/operations/kinds/leader-override/index.ts';
import { LEAVE_STOPPED_REASON } from '../../lib/operations/kinds/restart-brokers/index.ts';
import { listOf } from '../../lib/operations/lists.ts';
import { renderPlanDetails, renderPlanMessage } from '../../lib/operations/render-slack.ts';
import { refusalText } from '../../lib/operations/render-text.ts';
import { planRestart, type RestartIo } from '../../lib/operations/kinds/restart-brokers/plan.ts';
import { MAX_CONSECUTIVE_ERRORS, cancelOwnReassignments, cleanupFinishedRun, runTick, type RunReporter, type TickInput } from '../../lib/operations/runner.ts';
import type { Plan } from '../../lib/operations/types.ts';
import type { ApprovalRequest } from '../../lib/approvals/types.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { approvalsOn, approvedByTwo } from '../approvals/two-approvers.ts';
import { FakeCluster } from './fake-cluster.ts';

let dynamo: LocalDynamo;
let approvals: ApprovalService<Plan>;
let cluster: FakeCluster;
let table = 0;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  ({ approvals } = await approvalsOn(dynamo.client, `edges-${++table}`));
  cluster = new FakeCluster().addTopic('orders', [[1, 2], [2, 3], [3, 1], [1, 3]]);
});

const approved = (plan: Plan) => approvedByTwo(approvals, plan, 'fake');

const quiet: RunReporter = { step: async () => {}, progress: async () => {}, finished: async () => {} };
const tick = (requestId: string, over: Partial<TickInput> = {}) =>
  runTick({ approvals, io: cluster, requestId, workerId: `w-${Math.random().toString(36).slice(2, 8)}`, deadline: Date.now() + 60_000, pollMs: 1, scheduleNext: async () => {}, report: quiet, sleep: async () => {}, ...over });

/** A broker host as the restart steps reach it: stop ends the process (after `stopPolls` status reads), start gives a new pid. */
class FakeHost {
  pid: number | null = 4242;
  calls: string[] = [];
  stopPolls = 0;
  private stopping = -1;
  failStatus = 0;
  failStart = 0;
  verdict: 'yes' | 'no' = 'yes';
  io(): RestartIo {
    return {
      assess: () => ({ verdict: this.verdict, reasons: this.verdict === 'no' ? ['1 partition would fall below min.insync.replicas.'] : [], wouldGoOffline: [], recovering: false }),
      probe: async () => null,
      service: async (_b, call: ServiceCall) => {
        this.calls.push(call.action);
        if (call.action === 'stop') this.stopping = this.stopPolls;
        if (call.action === 'start') {
          if (this.failStart-- > 0) return { ok: false, stdout: '', detail: 'start on broker 1\'s host: Failed', execution: null };
          if (this.pid === null) this.pid = 5000 + this.calls.length;
        }
        return { ok: true, stdout: call.action === 'release' ? 'released=1\n' : '', detail: '', execution: null };
      },
      status: async (): Promise<ServiceStatus> => {
        if (this.failStatus-- > 0) throw new Error('status on broker 1\'s host: connection refused');
        if (this.stopping >= 0 && this.stopping-- === 0) this.pid = null;
        return { state: this.pid ? 'active' : 'inactive', pid: this.pid, markers: [{ dir: '/data/1', present: true }], timeoutStopRaw: null };
      },
    };
  }
}

async function restartPlan(host: FakeHost): Promise<Plan> {
  const planned = planRestart(await cluster.snapshot(null), {
    brokers: [1],
    rolling: false,
    service: { unit: 'kafka', stopBoundSeconds: 60, readyTimeoutSeconds: 60 },
    facts: [{ brokerId: 1, probe: null, lastShutdownSeconds: 2, systemdStopTimeoutSeconds: 30, pid: host.pid, host: { unit: 'kafka', logsDir: null, logDirs: ['/data/1'] } }],
    assess: host.io().assess,
    activeControllerId: null,
  });
  if (!planned.ok) throw new Error(refusalText(planned.refusal));
  return planned.plan;
}

/** A one-broker restart of broker 1 on a fresh FakeHost, approved by two. */
async function approvedRestart(): Promise<{ host: FakeHost; id: string }> {
  const host = new FakeHost();
  cluster.restart = async () => host.io();
  return { host, id: await approved(await restartPlan(host)) };
}

/**
 * Runs `then` once `step` is audited as done, before the run goes on: what a
 * person (or the world) does between two steps. The thread's posts run beside
 * the run, so a reporter cannot be that hook.
 */
function afterAudit(step: string, then: () => Promise<unknown> | void): void {
  const record = approvals.recordStep.bind(approvals);
  let done = false;
  approvals.recordStep = async (...args: Parameters<typeof record>) => {
    const recorded = await record(...args);
    if (!done && args[2].name === step && args[2].status === 'ok') {
      done = true;
      await then();
    }
    return recorded;
  };
}

/** Asks for the run's cancel (with `reason`) as soon as `step` has finished. */
function cancelAfter(id: string, step: string, user: string, reason: string): RunReporter {
  afterAudit(step, () => approvals.requestCancel(id, user, reason));
  return quiet;
}

describe('edge 1: a restart run never ends with a broker stopped by us', () => {
  it('cancel pressed between the stop and the start: CANCELLED, and the broker is started again with a new pid', async () => {
    const { host, id } = await approvedRestart();
    const before = host.pid;
    const report = cancelAfter(id, 'stop-broker', 'UBOB', 'changed my mind');
    const result = await tick(id, { report });
    expect(result).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
    expect(host.calls).toEqual(['stop', 'start']);
    expect(host.pid).not.toBeNull();
    expect(host.pid).not.toBe(before);
    expect((await approvals.get(id))!.outcome?.summary).toMatch(/cancelled by <@UBOB>.*at step 3 of 4; broker 1 started again/);
    expect((await approvals.get(id))!.run?.cleanupPending).toBeUndefined();
  });

  it(`${MAX_CONSECUTIVE_ERRORS} errors in a row after the stop: FAILED, and the compensation starts the broker`, async () => {
    const { host, id } = await approvedRestart();
    // The host stops answering right after the stop was confirmed.
    afterAudit('stop-broker', () => void (host.failStatus = MAX_CONSECUTIVE_ERRORS));
    let result = await tick(id);
    for (let i = 0; i < MAX_CONSECUTIVE_ERRORS + 2 && result.kind === 'parked'; i++) result = await tick(id);
    expect(result).toMatchObject({ kind: 'finished', status: 'FAILED' });
    expect((result as { summary: string }).summary).toMatch(/stopped after 20 failed attempts in a row at step 3.*broker 1 started again/);
    expect(host.pid).not.toBeNull();
  });

  it('a failed start: FAILED; the start is owed (cleanupPending) until the sweep gets it done', async () => {
    const { host, id } = await approvedRestart();
    host.failStart = 2;
    const result = await tick(id);
    expect(result).toMatchObject({ kind: 'finished', status: 'FAILED' });
    const owed = (await approvals.get(id))!;
    expect(owed.outcome?.summary).toMatch(/could not start broker 1's service.*broker 1 may be stopped and could not be started yet/);
    expect(owed.run?.cleanupPending).toBe(true);
    expect(host.pid).toBeNull();
    const cleaned = await cleanupFinishedRun(approvals, cluster, owed);
    expect(cleaned).toMatchObject({ complete: true, text: expect.stringMatching(/broker 1 started again/) });
    expect(host.pid).not.toBeNull();
  });

  it('"leave stopped" chosen in the thread: the only way a run ends with the broker down', async () => {
    const { host, id } = await approvedRestart();
    const report = cancelAfter(id, 'stop-broker', 'UALICE', LEAVE_STOPPED_REASON);
    expect(await tick(id, { report })).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
    // Never started; the drop-in that disabled the stop timeout and SIGKILL is removed all the same.
    expect(host.calls).toEqual(['stop', 'release']);
    expect(host.pid).toBeNull();
    expect((await approvals.get(id))!.outcome?.summary).toMatch(/broker 1 left stopped, as chosen in the thread \(systemd's stop timeout restored\)/);
  });
});

describe('edge 1b: a stopped broker never depends on reaching the cluster', () => {
  it('cancel while the cluster cannot be reached: the cancel is seen and the broker started from its host', async () => {
    const { host, id } = await approvedRestart();
    // Ticks short enough to park after each step, until the broker is down.
    for (let i = 0; i < 10 && !host.calls.includes('stop'); i++) expect((await tick(id, { deadline: Date.now() + 5_002 })).kind).toBe('parked');
    expect(host.calls).toEqual(['stop']);
    // The only bootstrap address was the broker just stopped: nothing answers over the protocol now.
    cluster.failNext = { method: 'openAdmin', times: 1_000 };
    await approvals.requestCancel(id, 'UBOB', 'abandon');
    const result = await tick(id);
    expect(result).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
    expect(host.calls).toEqual(['stop', 'start']);
    expect(host.pid).not.toBeNull();
    expect((await approvals.get(id))!.outcome?.summary).toMatch(/cancelled by <@UBOB> \(abandon\).*broker 1 started again/);
  });

  it('the sweep\'s clean-up starts a broker left stopped even while the cluster cannot be reached', async () => {
    const { host, id } = await approvedRestart();
    host.failStart = 2;
    expect(await tick(id)).toMatchObject({ kind: 'finished', status: 'FAILED' });
    cluster.failNext = { method: 'openAdmin', times: 1_000 };
    const cleaned = await cleanupFinishedRun(approvals, cluster, (await approvals.get(id))!);
    expect(cleaned).toMatchObject({ complete: true, text: expect.stringMatching(/broker 1 started again/) });
    expect(host.pid).not.toBeNull();
  });

  it('"leave stopped" chosen once the broker was already started again: the thread says it runs', async () => {
    const { id } = await approvedRestart();
    const report = cancelAfter(id, 'start-broker', 'UALICE', LEAVE_STOPPED_REASON);
    expect(await tick(id, { report })).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
    const summary = (await approvals.get(id))!.outcome?.summary ?? '';
    expect(summary).toMatch(/broker 1 is running/);
    expect(summary).not.toMatch(/left stopped/);
  });

  it('two approved restarts of different brokers never run side by side: the second waits for the first', async () => {
    const one = new FakeHost();
    cluster.restart = async () => one.io();
    const first = await approved(await restartPlan(one));
    const second = await approved(await restartPlan(one));
    let secondWhileFirstRan: Awaited<ReturnType<typeof tick>> | null = null;
    afterAudit('stop-broker', async () => void (secondWhileFirstRan = await tick(second)));
    expect(await tick(first)).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    expect(secondWhileFirstRan).toMatchObject({ kind: 'parked' });
    expect(one.calls).toEqual(['stop', 'start']);
  });
});

describe('edge 4: we cancel only reassignments whose target is the one we submitted', () => {
  it('after a cancelled drain, the sweep never cancels a reassignment someone started later on the same partitions', async () => {
    cluster.pollsToFinish = 100;
    const planned = planDrain(await cluster.snapshot(null), { broker: 3, partial: true }, { throttleBytesPerSec: 1_048_576 });
    if (!planned.ok) throw new Error(refusalText(planned.refusal));
    const id = await approved(planned.plan);
    expect((await tick(id, { deadline: Date.now() + 5_002 })).kind).toBe('parked');
    await approvals.requestCancel(id, 'UBOB');
    expect(await tick(id)).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
    expect(cluster.moving.size).toBe(0);
    // A human moves orders-1 (2,3; our drain's target was 2,1) to 3,1 with kafka-reassign-partitions.sh.
    const ours = planned.plan.steps[0]!.action === 'reassign' ? planned.plan.steps[0]!.partitions.find((m) => m.partition === 1)!.replicas : [];
    expect(ours).toEqual([2, 1]);
    const admin = await cluster.openAdmin();
    await admin.alterPartitionReassignments([{ topic: 'orders', partition: 1, replicas: [3, 1] }]);
    const callsBefore = cluster.calls.length;
    const finished = (await approvals.get(id))!;
    // Even a cleanup that believes it still owes the cancel (its record lost) leaves a foreign target alone.
    await approvals.putRunData(id, 'compensation', {});
    const cleaned = await cleanupFinishedRun(approvals, cluster, finished);
    expect(cleaned.text).toMatch(/1 reassignment of the same partitions towards another target \(not ours\) left alone/);
    expect(cluster.moving.has('orders\u00001')).toBe(true);
    expect(cluster.calls.slice(callsBefore).filter((c) => c.includes(':cancel'))).toEqual([]);
    await admin.close();
  });
});

describe('edge 4b: a cancel says the original replicas are kept only once the metadata shows them', () => {
  it('waits out a lagging revert, and names the partitions still showing the copy when the wait ends', async () => {
    cluster.pollsToFinish = 100;
    const planned = planDrain(await cluster.snapshot(null), { broker: 3, partial: true }, { throttleBytesPerSec: 1_048_576 });
    if (!planned.ok) throw new Error(refusalText(planned.refusal));
    const moving = planned.plan.steps[0]!.action === 'reassign' ? planned.plan.steps[0]!.partitions.length : 0;
    const admin = await cluster.openAdmin();
    await admin.alterPartitionReassignments(planned.plan.steps[0]!.action === 'reassign' ? planned.plan.steps[0]!.partitions : []);
    // Two stale metadata answers, then the revert shows: the wait sees it.
    cluster.revertLagPolls = 2;
    // Polled every 20 ms instead of every second: the same polls, without the real wait.
    expect(await cancelOwnReassignments(admin, planned.plan, 10_000, 20)).toEqual({ stopped: moving, foreign: 0, unreverted: [] });
    // A revert that outlasts the wait is named, not claimed.
    await admin.alterPartitionReassignments(planned.plan.steps[0]!.action === 'reassign' ? planned.plan.steps[0]!.partitions : []);
    cluster.revertLagPolls = 1_000;
    const late = await cancelOwnReassignments(admin, planned.plan, 150, 20);
    expect(late.stopped).toBe(moving);
    expect(late.unreverted).toHaveLength(moving);
    expect(late.unreverted[0]).toMatch(/^orders-\d$/);
    await admin.close();
  });
});

describe('edge 5: a plan is bound to its cluster', () => {
  it('the same state on another cluster (another cluster id) is STALE: nothing runs', async () => {
    const planned = planDrain(await cluster.snapshot(null), { broker: 3, partial: true }, { throttleBytesPerSec: 1_048_576 });
    if (!planned.ok) throw new Error(refusalText(planned.refusal));
    const id = await approved(planned.plan);
    cluster.clusterId = 'another-cluster';
    expect(await tick(id)).toMatchObject({ kind: 'finished', status: 'STALE', summary: expect.stringMatching(/clusterId "fake" → "another-cluster"/) });
    expect(cluster.calls).toEqual([]);
  });

  it('a run paused at a can-restart check checks the fingerprint again on Resume', async () => {
    const host = new FakeHost();
    host.verdict = 'no';
    cluster.restart = async () => host.io();
    const id = await approved(await restartPlan(host));
    const paused = await tick(id);
    expect(paused.kind).toBe('parked');
    // A sweep's tick while paused: still paused, nothing asked.
    expect((await tick(id)).kind).toBe('parked');
    expect(host.calls).toEqual([]);
    // While it waited, broker 2 left the cluster; then an approver resumes.
    cluster.live.delete(2);
    host.verdict = 'yes';
    await approvals.requestResume(id, 'UALICE');
    expect(await tick(id)).toMatchObject({ kind: 'finished', status: 'STALE' });
    expect(host.calls).toEqual([]);
  });
});

describe('edge 7b: a rolling restart found STALE at a later broker says what had run', () => {
  it('paused at broker 2\'s check, resumed after the cluster changed: STALE, and the summary names the steps that ran', async () => {
    const host = new FakeHost();
    cluster.restart = async () => host.io();
    const facts = [1, 2].map((brokerId) => ({ brokerId, probe: null, lastShutdownSeconds: 2, systemdStopTimeoutSeconds: 30, pid: host.pid, host: { unit: 'kafka', logsDir: null, logDirs: [`/data/${brokerId}`] } }));
    const planned = planRestart(await cluster.snapshot(null), { brokers: [1, 2], rolling: true, service: { unit: 'kafka', stopBoundSeconds: 60, readyTimeoutSeconds: 60 }, facts, assess: host.io().assess, activeControllerId: null });
    if (!planned.ok) throw new Error(refusalText(planned.refusal));
    const id = await approved(planned.plan);
    // Broker 1 is back; broker 2's check will say no.
    afterAudit('wait-broker-ready', () => void (host.verdict = 'no'));
    expect((await tick(id)).kind).toBe('parked');
    const ran = (await approvals.get(id))!.run!.cursor;
    expect(ran).toBeGreaterThan(0);
    cluster.live.delete(3);
    host.verdict = 'yes';
    await approvals.requestResume(id, 'UALICE');
    const result = await tick(id);
    expect(result).toMatchObject({ kind: 'finished', status: 'STALE' });
    expect((result as { summary: string }).summary).toMatch(new RegExp(`^stopped before step ${ran + 1} \\(steps 1–${ran} had run\\): the cluster changed`));
  });
});

describe('edge 8: a leader override is bound to each replica\'s measured end', () => {
  it('a replica whose measured end changed before the run (wiped and back) makes the plan STALE', async () => {
    cluster = new FakeCluster().addTopic('orders', [[1, 2, 3]], 700);
    const p = cluster.partition('orders', 0);
    p.leader = -1;
    p.isr = [1];
    cluster.live.delete(1);
    const planned = await leaderOverride.plan(cluster, { topic: 'orders', partition: 0 });
    if (!planned.ok) throw new Error(refusalText(planned.refusal));
    const id = await approved(planned.plan);
    // Same metadata (leader, replicas, ISR, live brokers), less data on the replicas.
    p.end = 0;
    expect(await tick(id)).toMatchObject({ kind: 'finished', status: 'STALE', summary: expect.stringMatching(/measured replica ends/) });
    expect(cluster.calls).toEqual([]);
  });
});

describe('edge 9: every list shown to approvers says "…and N more", the full list is in the thread', () => {
  it('a plan with 11 warnings shows 8, says 3 more, and its thread gets all 11', async () => {
    const planned = planDrain(await cluster.snapshot(null), { broker: 3, partial: true }, { throttleBytesPerSec: 1_048_576 });
    if (!planned.ok) throw new Error(refusalText(planned.refusal));
    const warnings = Array.from({ length: 11 }, (_, i) => ({ code: 'leaderless-cannot-copy', partitions: listOf([`t-${i}`]) }));
    const plan = { ...planned.plan, warnings } as Plan;
    const request = { id: 'r1', status: 'REQUESTED', version: 1, plan, planDigest: 'd', requester: 'UREQ', requiredApprovals: 2, createdAt: 0, expiresAt: Date.now() + 60_000, approvals: [], events: [] } as ApprovalRequest<Plan>;
    const text = JSON.stringify(renderPlanMessage(request).blocks);
    expect(text.match(/has no leader, so nothing can copy it/g)).toHaveLength(8);
    expect(text).toContain('…and 3 more (full list in the thread)');
    const thread = renderPlanDetails(plan).map((m) => JSON.stringify(m.blocks)).join('');
    expect(thread.match(/has no leader, so nothing can copy it/g)).toHaveLength(11);
    expect(thread).toContain('t-10');
    // Plurals as said: "1 partition", never "(1 partitions)" or "partition(s)".
    expect(text).not.toMatch(/1 partitions|partition\(s\)/);
  });

  it('a name list in a notice shows five and counts the rest', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `orders-${i}`);
    const text = refusalText({ code: 'reassignment-running', partitions: listOf(names) });
    expect(text).toBe('a reassignment is already running for orders-0, orders-1, orders-2, orders-3, orders-4 and 7 more');
  });
});

describe('the cluster operation lock seam (OperationLock, wired to the approvals service where it has one)', () => {
  it('of two approved drains, the second waits (parked, never failed) until the first has released the lock', async () => {
    cluster.pollsToFinish = 3;
    const held = new Map<string, string>();
    const lock = {
      take: async (c: string, id: string) => (held.get(c) && held.get(c) !== id ? { ok: false as const, message: `cluster ${c} is busy with request ${held.get(c)}` } : (held.set(c, id), { ok: true as const })),
      release: async (c: string, id: string) => void (held.get(c) === id && held.delete(c)),
    };
    const plan = async () => {
      const p = planDrain(await cluster.snapshot(null), { broker: 3, partial: true }, { throttleBytesPerSec: 1_048_576 });
      if (!p.ok) throw new Error(refusalText(p.refusal));
      return p.plan;
    };
    const first = await approved(await plan());
    const second = await approved({ ...(await plan()), id: 'drain-second' } as Plan);
    expect((await tick(first, { lock, deadline: Date.now() + 5_002 })).kind).toBe('parked');
    expect(await tick(second, { lock })).toMatchObject({ kind: 'parked', nextInMs: 30_000 });
    expect((await approvals.get(second))!.status).toBe('EXECUTING');
    let r = await tick(first, { lock });
    for (let i = 0; i < 5 && r.kind === 'parked'; i++) r = await tick(first, { lock });
    expect(r).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    expect(held.size).toBe(0);
    // Its plan no longer fits (the first drain moved the replicas): the second now checks and is STALE, nothing half-done.
    expect(await tick(second, { lock })).toMatchObject({ kind: 'finished', status: 'STALE' });
  });
});
