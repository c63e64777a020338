// Writable first: a leader override's run re-checks with parallel reads only,
// elects, watches Metadata every 50 ms until the partition takes acks=all
// writes, and only then restores replicas; the thread hears of it beside the
// run, never in its way; each step's start and end are audited, and the
// phases (re-checked → elected → writable → done) are read back from them.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalService } from '../../lib/approvals/service.ts';
import { runTiming } from '../../lib/approvals/run-timing.ts';
import { leaderOverride } from '../../lib/operations/kinds/leader-override/index.ts';
import { runTick, type RunReporter } from '../../lib/operations/runner.ts';
import { renderSummary } from '../../lib/operations/render-slack.ts';
import type { Plan } from '../../lib/operations/types.ts';
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
  ({ approvals } = await approvalsOn(dynamo.client, `writable-${++table}`));
  // The outage: broker 1, the last in-sync leader, is gone; 2 and 3 are live and out of the ISR.
  cluster = new FakeCluster().addTopic('orders', [[1, 2, 3]]);
  cluster.live.delete(1);
  Object.assign(cluster.partition('orders', 0), { leader: -1, isr: [1] });
  cluster.minIsr = 2;
});

async function approvedOverride(): Promise<string> {
  const planned = await leaderOverride.plan(cluster, { topic: 'orders', partition: 0, replica: 3 });
  if (!planned.ok) throw new Error(JSON.stringify(planned.refusal));
  return approvedByTwo(approvals, planned.plan as Plan, 'fake');
}

const quiet: RunReporter = { step: async () => {}, progress: async () => {}, finished: async () => {} };

describe('a leader override, writable first', () => {
  it('elects, then watches every 50 ms until the ISR holds min.insync.replicas, then restores the replicas; the phases come from the audit trail', async () => {
    const id = await approvedOverride();
    const plan = (await approvals.get(id))!.plan;
    expect(plan.steps.map((s) => s.action)).toEqual(['reassign', 'elect-leaders', 'verify-leaders', 'verify-writable', 'wait-reassignment']);
    const sleeps: number[] = [];
    let looks = 0;
    const result = await runTick({
      approvals,
      io: cluster,
      requestId: id,
      workerId: 'w-1',
      deadline: Date.now() + 60_000,
      pollMs: 1_000,
      scheduleNext: async () => {},
      report: quiet,
      sleep: async (ms) => {
        sleeps.push(ms);
        // Broker 2 truncates and rejoins the ISR after the new leader's third look.
        if (++looks === 3) cluster.partition('orders', 0).isr = [3, 2];
      },
    });
    expect(result).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    // Metadata is looked at every 50 ms while waiting for writes; the reorder's copy is polled at the run's interval.
    expect(sleeps.slice(0, 3)).toEqual([50, 50, 50]);
    const done = (await approvals.get(id))!;
    const writable = done.events.find((e) => e.data?.name === 'verify-writable')!;
    expect(writable.message).toMatch(/orders-0 takes acks=all writes: leader 3, ISR 3,2 \(min.insync.replicas 2\) \(watched: 4 looks, one every \d+ ms\)/);
    expect(writable.data).toMatchObject({ phase: 'writable', startedAt: expect.any(Number) });
    const timing = runTiming(done)!;
    expect(timing.phases.map((p) => p.phase)).toEqual(['re-checked', 'elected', 'writable', 'done']);
    const at = timing.phases.map((p) => p.afterMs);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    // Every step has its start and end; none starts before the one before it ended.
    for (const [i, s] of timing.steps.entries()) {
      expect(s.startedMs).not.toBeNull();
      expect(s.endedMs).toBeGreaterThanOrEqual(s.startedMs!);
      if (i > 0) expect(s.startedMs!).toBeGreaterThanOrEqual(timing.steps[i - 1]!.endedMs);
    }
    const summary = JSON.stringify(renderSummary(done, { status: 'SUCCEEDED', summary: 'ok', steps: [{ index: 3, name: 'verify-writable', status: 'ok', tookMs: 42 }], audit: [], durationMs: 1 }).blocks);
    expect(summary).toContain('4. verify-writable: ok (42 ms)');
    expect(summary).toMatch(/\*Timing\* \(from the last approval\): re-checked \d+ ms · elected \d+ ms · writable \d+ ms · done \d+ ms/);
  });

  it('a partition left with fewer replicas than min.insync.replicas: the run says acks=all writes are refused, and is not writable', async () => {
    cluster.minIsr = 3;
    const id = await approvedOverride();
    const result = await runTick({ approvals, io: cluster, requestId: id, workerId: 'w-1', deadline: Date.now() + 60_000, pollMs: 1, scheduleNext: async () => {}, report: quiet, sleep: async () => {} });
    expect(result).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    const done = (await approvals.get(id))!;
    expect(done.events.find((e) => e.data?.name === 'verify-writable')?.message).toMatch(/has 2 live replicas, fewer than min.insync.replicas 3: acks=all writes are refused/);
    expect(runTiming(done)!.phases.map((p) => p.phase)).toEqual(['re-checked', 'elected', 'done']);
  });

  it('the thread hears of each step beside the run: a slow Slack does not hold the election back', async () => {
    const id = await approvedOverride();
    let release!: () => void;
    const slack = new Promise<void>((r) => (release = r));
    const posted: string[] = [];
    const report: RunReporter = {
      // Every post waits until the run has elected the leader: were posts awaited by the run, it would never get there.
      step: async (r) => {
        await slack;
        posted.push(r.name);
      },
      progress: async () => {},
      finished: async () => {
        posted.push('finished');
      },
    };
    const elected = (async () => {
      while (!(await approvals.get(id))?.events.some((e) => e.data?.name === 'verify-leaders')) await new Promise((r) => setTimeout(r, 5));
      release();
    })();
    const result = await runTick({ approvals, io: cluster, requestId: id, workerId: 'w-1', deadline: Date.now() + 60_000, pollMs: 1, scheduleNext: async () => {}, report, sleep: async () => void (cluster.partition('orders', 0).isr = [3, 2]) });
    await elected;
    expect(result).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    // In order, all of them, by the time the tick returns.
    expect(posted).toEqual(['check preconditions', 'reassign', 'elect-leaders', 'verify-leaders', 'verify-writable', 'wait-reassignment', 'finished']);
  });

  it("a Slack that never answers holds the worker no longer than the invocation's deadline", async () => {
    const id = await approvedOverride();
    const hung: RunReporter = { step: () => new Promise<void>(() => {}), progress: async () => {}, finished: async () => {} };
    const result = await runTick({ approvals, io: cluster, requestId: id, workerId: 'w-1', deadline: Date.now() + 6_000, pollMs: 1, scheduleNext: async () => {}, report: hung, sleep: async () => void (cluster.partition('orders', 0).isr = [3, 2]) });
    // The run itself finished; only its posts are still owed (the resumed run's thread says what it missed).
    expect(result).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    expect((await approvals.get(id))!.status).toBe('SUCCEEDED');
  }, 20_000);

  it('the re-check reads in parallel: the snapshot and the replica sizes are both asked before either answers', async () => {
    const id = await approvedOverride();
    const order: string[] = [];
    const snapshot = cluster.snapshot.bind(cluster);
    const openAdmin = cluster.openAdmin.bind(cluster);
    let gate!: () => void;
    const bothAsked = new Promise<void>((r) => (gate = r));
    const asked = (what: string) => {
      order.push(what);
      if (order.includes('snapshot') && order.includes('describeLogDirs')) gate();
      return bothAsked;
    };
    let first = true;
    cluster.snapshot = async (topics) => {
      if (first) {
        first = false;
        await asked('snapshot');
      }
      return snapshot(topics);
    };
    cluster.openAdmin = async () => {
      const admin = await openAdmin();
      const describe = admin.describeLogDirs.bind(admin);
      return Object.assign(admin, {
        describeLogDirs: async (...args: Parameters<typeof describe>) => {
          await asked('describeLogDirs');
          return describe(...args);
        },
      });
    };
    const result = await runTick({ approvals, io: cluster, requestId: id, workerId: 'w-1', deadline: Date.now() + 60_000, pollMs: 1, scheduleNext: async () => {}, report: quiet, sleep: async () => void (cluster.partition('orders', 0).isr = [3, 2]) });
    expect(result).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    expect(order.slice(0, 2).sort()).toEqual(['describeLogDirs', 'snapshot']);
  });
});
