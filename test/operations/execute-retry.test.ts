// An execute job retried after its worker died right after one of its writes
// (SQS delivers it again; the following ticks then run): every thread message
// is there once, none is lost, and the cluster lock is never free while the
// run it guards can still act. Real jobs, Slack stub, approvals and state on
// dynalite, the scripted cluster; see retry-harness.ts for how a kill is made.
import { beforeEach, describe, expect, it } from 'vitest';
import { approvedRequest, executeJob, inThread, type KillPoint, type RetryWorld } from './retry-harness.ts';
import { useOpsRetryWorld } from './retry-world.ts';

const world = useOpsRetryWorld();
const { stub } = world;
let w: RetryWorld;
// A copy that takes a few ticks: the retry still has progress to report.
beforeEach(async () => {
  w = await world.slowTopicWorld('execute-retry', 4);
});

/** A dead worker's lease has run out by the time SQS delivers its job again. */
const LEASE_OUT_MS = 5 * 60_000;
const posted = (re: RegExp): KillPoint => (label, method, args) => label === 'slack' && method === 'post' && re.test(String((args[0] as { text?: string }).text));
const called = (label: string, name: string): KillPoint => (l, method) => l === label && method === name;
const noThrottles = () => [...w.ops.cluster.configs.values()].every((c) => ![...c.keys()].some((k) => k.includes('throttle')));

/** Runs `command`'s approved plan on a worker that dies at `at`, delivers the job again, runs what follows. */
async function killedAndRetried(command: string, at: KillPoint) {
  const { id, plan } = await approvedRequest(w, command);
  const dying = await w.runDying(executeJob(id), at, 10_500);
  expect(dying.died).toBe(true);
  const atDeath = (await w.approvals.get(id))!;
  w.skew(LEASE_OUT_MS);
  await w.run(dying.job, 10_500);
  await w.drain();
  return { id, plan, atDeath, final: (await w.approvals.get(id))! };
}

/** The run's progress message, while it runs and once the outcome replaced it. */
const PROGRESS = /^:hourglass|no more progress to show/;

describe('an execute job retried after its worker died', () => {
  it('right after posting the progress message, before saving where: the run edits that one message, never a second', async () => {
    const { plan, final } = await killedAndRetried('raise-rf slow 2', posted(/^:hourglass/));
    expect(final.status).toBe('SUCCEEDED');
    expect(inThread(w, plan, PROGRESS)).toHaveLength(1);
    expect(inThread(w, plan, /: SUCCEEDED$/)).toHaveLength(1);
  });

  it('right after the final status was written, before the summary: the retry posts the summary, once', async () => {
    const { plan, atDeath } = await killedAndRetried('elect-leader orders 0 3', called('approvals', 'finish'));
    expect(atDeath.status).toBe('SUCCEEDED');
    expect(inThread(w, plan, /: SUCCEEDED$/)).toHaveLength(1);
    // Delivered once more, long after: nothing new.
    const before = stub.calls.filter((c) => c.method === 'chat.postMessage').length;
    await w.run(executeJob(atDeath.id));
    expect(stub.calls.filter((c) => c.method === 'chat.postMessage').length).toBe(before);
  });

  it('right after posting the summary: no second summary', async () => {
    const { plan } = await killedAndRetried('elect-leader orders 0 3', posted(/: SUCCEEDED$/));
    expect(inThread(w, plan, /: SUCCEEDED$/)).toHaveLength(1);
  });

  it('right after posting a step: the step, the summary and the resume note are each there once', async () => {
    const { plan, final } = await killedAndRetried('raise-rf slow 2', posted(/^step 1 /));
    expect(final.status).toBe('SUCCEEDED');
    expect(inThread(w, plan, /^step 1 /)).toHaveLength(1);
    expect(inThread(w, plan, /^:arrows_counterclockwise: Resumed/).length).toBeLessThanOrEqual(1);
    expect(inThread(w, plan, /: SUCCEEDED$/)).toHaveLength(1);
  });

  it('right after the step was audited, before its message: the retry posts the missing step message', async () => {
    const { plan, final } = await killedAndRetried('elect-leader orders 0 3', (l, m, args) => l === 'approvals' && m === 'recordStep' && (args[2] as { index: number }).index === 0);
    expect(final.status).toBe('SUCCEEDED');
    expect(inThread(w, plan, /^step 1 /)).toHaveLength(1);
    expect(inThread(w, plan, /: SUCCEEDED$/)).toHaveLength(1);
  });

  it('while releasing the cluster lock at the end: the lock is never free while the run is still open, and the retry finishes it once', async () => {
    const { plan, atDeath, final } = await killedAndRetried('raise-rf slow 2', called('approvals', 'unlockCluster'));
    // Freed while still EXECUTING, another run could take the lock while this one is resumed and compensates again.
    expect(atDeath.status).not.toBe('EXECUTING');
    expect(final.status).toBe('SUCCEEDED');
    expect(inThread(w, plan, /: SUCCEEDED$/)).toHaveLength(1);
    expect(noThrottles()).toBe(true);
  });

  it('right after the final status was written, the lock still held: the retry gives the lock back', async () => {
    const { atDeath } = await killedAndRetried('raise-rf slow 2', called('approvals', 'finish'));
    expect(atDeath.status).toBe('SUCCEEDED');
    const other = await approvedRequest(w, 'elect-leader orders 0 3');
    // The finished run's lock is released (or stale) either way; the next exclusive run takes it and runs.
    await w.run(executeJob(other.id));
    await w.drain();
    expect((await w.approvals.get(other.id))!.status).toBe('SUCCEEDED');
    expect(w.log.records.some((r) => /busy with request/.test(JSON.stringify(r)))).toBe(false);
  });
});

describe('duplicate ticks', () => {
  it('killed right after enqueueing its next tick, the retry enqueues another: both ticks run, the run acts once per step and reports once', async () => {
    const { id, plan, final } = await killedAndRetried('raise-rf slow 2', called('queue', 'enqueue'));
    expect(final.status).toBe('SUCCEEDED');
    expect(inThread(w, plan, PROGRESS)).toHaveLength(1);
    expect(inThread(w, plan, /: SUCCEEDED$/)).toHaveLength(1);
    expect(inThread(w, plan, /^step \d+ /).map((m) => m.text)).toEqual([...new Set(inThread(w, plan, /^step \d+ /).map((m) => m.text))]);
    expect(noThrottles()).toBe(true);
    // A tick that came too late found the run closed and said nothing.
    expect(w.queued).toHaveLength(0);
    expect(final.events.filter((e) => e.type === 'succeeded')).toHaveLength(1);
    expect(id).toBeTruthy();
  });

  it('two copies of a parked tick at the same time: one takes the lease, the other does nothing', async () => {
    const { id, plan } = await approvedRequest(w, 'raise-rf slow 2');
    await w.run(executeJob(id), 10_500);
    expect(w.queued).toHaveLength(1);
    const tick = w.queued.shift()!.job;
    await Promise.all([w.run(tick, 10_500), w.run({ ...tick, id: `${tick.id}-copy` }, 10_500)]);
    // Only the winner parked again and scheduled its next tick.
    expect(w.queued).toHaveLength(1);
    await w.drain();
    expect((await w.approvals.get(id))!.status).toBe('SUCCEEDED');
    expect(inThread(w, plan, /: SUCCEEDED$/)).toHaveLength(1);
  });
});
