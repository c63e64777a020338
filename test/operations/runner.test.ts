// The operation runner as a durable state machine: approvals and run state on
// a real DynamoDB-compatible server (dynalite), the cluster scripted
// (FakeCluster) so that copying, dying workers, broker loss and cancels can
// be timed exactly. The same flows against real Kafka: *.int.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { planDrain, planRaiseReplicationFactor } from '../../lib/operations/index.ts';
import { cleanupFinishedRun, runTick, type RunReporter, type TickInput } from '../../lib/operations/runner.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { FakeCluster } from './fake-cluster.ts';
import { refusalText } from '../../lib/operations/render-text.ts';
import { wholeCallError } from '../../lib/kafka/errors.ts';

let dynamo: LocalDynamo;
let approvals: ApprovalService<Plan>;
let store: ApprovalStore;
const POLICY = { approvers: new Set(['UALICE', 'UBOB']), requiredApprovals: 2, ttlMs: 600_000 };
let cluster: FakeCluster;
let table = 0;
let lines: string[];
let scheduled: number[];

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  store = new ApprovalStore(dynamo.client, { tableName: `runner-${++table}` });
  await store.ensureTable();
  approvals = new ApprovalService<Plan>({ store, policy: POLICY });
  cluster = new FakeCluster().addTopic('orders', [[1, 2], [2, 3], [3, 1], [1, 3]]).addTopic('logs', [[1], [2], [3]]);
  lines = [];
  scheduled = [];
});

const reporter: RunReporter = {
  async step(r) {
    lines.push(`step ${r.index} ${r.name} ${r.status}${r.detail ? `: ${r.detail}` : ''}`);
  },
  async progress(text) {
    lines.push(`progress ${text}`);
  },
  async resumed(r) {
    lines.push(`resumed at ${r.run?.cursor}`);
  },
  async finished(_r, o) {
    lines.push(`finished ${o.status}: ${o.summary}`);
  },
};

async function approvedRequest(plan: Plan): Promise<string> {
  const created = await approvals.request(plan, 'UREQ', { context: { cluster: 'fake' } });
  if (!created.ok) throw new Error(created.message);
  await approvals.approve(created.request.id, 'UALICE');
  const second = await approvals.approve(created.request.id, 'UBOB');
  expect(second.ok && second.readyToExecute).toBe(true);
  return created.request.id;
}

async function drainPlan(broker = 3, partial = true): Promise<Plan> {
  const planned = planDrain(await cluster.snapshot(null), { broker, partial }, { throttleBytesPerSec: 1_048_576 });
  if (!planned.ok) throw new Error(refusalText(planned.refusal));
  return planned.plan;
}

function tick(requestId: string, over: Partial<TickInput> = {}) {
  let fakeNow = Date.now();
  return runTick({
    approvals,
    io: cluster,
    requestId,
    workerId: `w-${Math.random().toString(36).slice(2, 8)}`,
    deadline: fakeNow + 60_000,
    pollMs: 1,
    scheduleNext: async (ms) => {
      scheduled.push(ms);
    },
    report: reporter,
    sleep: async (ms) => {
      fakeNow += ms;
    },
    ...over,
  });
}

describe('a drain that copies for longer than one invocation', () => {
  it('parks while copying, resumes on the next tick, removes exactly its throttles, and finishes once', async () => {
    cluster.pollsToFinish = 6;
    // An operator's own throttles: a rate on broker 2 and an entry on the topic list. Both must survive.
    cluster.config('broker:2').set('leader.replication.throttled.rate', '777');
    cluster.config('topic:orders').set('leader.replication.throttled.replicas', '9:9');
    const id = await approvedRequest(await drainPlan());
    let now = Date.now();
    const clock = () => now;
    // Each tick has time for two polls only: it must park and schedule the next one.
    const first = await tick(id, { now: clock, deadline: now + 5_000 + 2 * 1_000 + 1, pollMs: 1_000, sleep: async (ms) => void (now += ms) });
    expect(first.kind).toBe('parked');
    expect(scheduled).toEqual([1_000]);
    const parked = (await approvals.get(id))!;
    expect(parked.status).toBe('EXECUTING');
    expect(parked.lease?.parked).toBe(true);
    expect(parked.run?.cursor).toBe(1);
    expect(parked.run?.progress?.text).toMatch(/0 of \d+ partitions done/);
    expect(cluster.config('broker:1').get('follower.replication.throttled.rate')).toBe('1048576');
    expect(cluster.config('broker:2').get('leader.replication.throttled.rate')).toBe('777');
    expect(cluster.config('topic:orders').get('leader.replication.throttled.replicas')).toMatch(/^9:9,/);

    let result = first;
    for (let i = 0; i < 10 && result.kind === 'parked'; i++) {
      now += 1_000;
      result = await tick(id, { now: clock, deadline: now + 5_000 + 2 * 1_000 + 1, pollMs: 1_000, sleep: async (ms) => void (now += ms) });
    }
    expect(result).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    // Progress carries bytes, a rate and an ETA once two polls exist (across invocations too).
    expect(lines.filter((l) => l.startsWith('progress')).at(-1), lines.join('\n')).toMatch(/copied · [\d.]+ (KiB|MiB|B)\/s · ETA \d+ s/);
    const done = (await approvals.get(id))!;
    expect(done.status).toBe('SUCCEEDED');
    expect(done.run?.invocations).toBeGreaterThan(1);
    expect(done.run?.cleanupPending).toBeUndefined();
    // Broker 3 holds nothing any more; our throttles are gone, the operator's stay.
    for (const parts of cluster.topics.values()) for (const p of parts) if (p.replicas.length > 1) expect(p.replicas).not.toContain(3);
    expect(cluster.config('broker:1').has('follower.replication.throttled.rate')).toBe(false);
    expect(cluster.config('broker:2').get('leader.replication.throttled.rate')).toBe('777');
    expect(cluster.config('topic:orders').get('leader.replication.throttled.replicas')).toBe('9:9');
    expect(cluster.config('topic:orders').has('follower.replication.throttled.replicas')).toBe(false);
    expect(done.events.filter((e) => e.type === 'step').map((e) => e.data?.name)).toEqual(['check preconditions', 'reassign', 'wait-reassignment', 'remove-throttles', 'verify-assignment']);
    // A redelivered tick finds it finished and does nothing.
    expect(await tick(id)).toMatchObject({ kind: 'not-run', code: 'already-executed' });
    expect(cluster.adminsOpen).toBe(0);
  });

  it('a worker killed mid-wait is resumed by the next one after its lease runs out, at the same step', async () => {
    cluster.pollsToFinish = 4;
    const id = await approvedRequest(await drainPlan());
    const killer = new AbortController();
    let polls = 0;
    const killed = await tick(id, {
      signal: killer.signal,
      sleep: async () => {
        if (++polls === 2) killer.abort();
      },
    });
    expect(killed.kind).toBe('aborted');
    const orphan = (await approvals.get(id))!;
    expect(orphan.lease?.parked).toBeUndefined();
    expect(orphan.run?.cursor).toBe(2 - 1);
    // While its lease is live, nobody else runs it.
    expect(await tick(id)).toMatchObject({ kind: 'not-run', code: 'already-claimed' });
    // Once it has run out (the sweep's test), the next tick takes over and finishes.
    const later = Date.now() + 10 * 60_000;
    const afterLease = new ApprovalService<Plan>({ store, policy: POLICY, now: () => later });
    const resumed = await tick(id, { approvals: afterLease, now: () => later, deadline: later + 60_000 });
    expect(resumed).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    expect(lines).toContain('resumed at 1');
    expect((await approvals.get(id))!.events.map((e) => e.type)).toContain('resumed');
  });
});

describe('cancel, stale, faults', () => {
  it('an approver cancels a running drain: in-flight partitions go back, throttles go, CANCELLED', async () => {
    cluster.pollsToFinish = 100;
    const id = await approvedRequest(await drainPlan());
    expect((await tick(id, { deadline: Date.now() + 5_002, pollMs: 1 })).kind).toBe('parked');
    expect(cluster.moving.size).toBeGreaterThan(0);
    const before = structuredClone([...cluster.moving.values()].map((m) => m.original));
    const asked = await approvals.requestCancel(id, 'UBOB', 'wrong broker');
    expect(asked.ok).toBe(true);
    const result = await tick(id);
    expect(result).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
    expect(cluster.moving.size).toBe(0);
    expect(before.length).toBeGreaterThan(0);
    expect([...cluster.configs.values()].every((c) => ![...c.keys()].some((k) => k.includes('throttled')))).toBe(true);
    const r = (await approvals.get(id))!;
    expect(r.status).toBe('CANCELLED');
    expect(r.outcome?.summary).toMatch(/cancelled by <@UBOB> \(wrong broker\).*still copying were stopped.*throttles removed/);
  });

  it('STALE: the cluster changed after planning, nothing runs', async () => {
    const id = await approvedRequest(await drainPlan());
    cluster.partition('orders', 1).replicas = [3, 2];
    const result = await tick(id);
    expect(result).toMatchObject({ kind: 'finished', status: 'STALE' });
    expect(cluster.calls).toEqual([]);
    expect((await approvals.get(id))!.status).toBe('STALE');
  });

  it('refuses to start while another reassignment is running', async () => {
    const id = await approvedRequest(await drainPlan());
    cluster.moving.set('logs\u00000', { target: [2], original: [1], polls: -1000 });
    const result = await tick(id);
    expect(result).toMatchObject({ kind: 'finished', status: 'FAILED' });
    expect((result as { summary: string }).summary).toMatch(/not run: another reassignment is running: logs-0/);
    expect(cluster.calls).toEqual([]);
  });

  it('a broker that dies mid-drain: progress says so, the run waits; it finishes once the broker is back', async () => {
    cluster.pollsToFinish = 2;
    const plan = planRaiseReplicationFactor(await cluster.snapshot(['logs']), { topic: 'logs', replicationFactor: 2 }, { throttleBytesPerSec: 2048 });
    if (!plan.ok) throw new Error(refusalText(plan.refusal));
    const id = await approvedRequest(plan.plan);
    const target = plan.plan.steps[0]!.action === 'reassign' ? plan.plan.steps[0]!.partitions[0]!.replicas[1]! : -1;
    // The reassignment has started when the broker receiving the new replica dies.
    expect((await tick(id, { deadline: Date.now() + 5_002, pollMs: 1 })).kind).toBe('parked');
    cluster.live.delete(target);
    const waiting = await tick(id, { deadline: Date.now() + 5_010, pollMs: 1 });
    expect(waiting.kind).toBe('parked');
    expect(lines.filter((l) => l.startsWith('progress')).at(-1)).toMatch(new RegExp(`broker ${target} is down: its partitions cannot finish`));
    cluster.live.add(target);
    expect(await tick(id)).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    expect([...cluster.configs.values()].every((c) => ![...c.keys()].some((k) => k.includes('throttled')))).toBe(true);
  });

  it('a cluster that does not answer: the run keeps its step and retries later instead of failing', async () => {
    const id = await approvedRequest(await drainPlan());
    cluster.failNext = { method: 'openAdmin', times: 1 };
    const first = await tick(id);
    expect(first.kind).toBe('parked');
    expect(lines.at(-1)).toMatch(/openAdmin: connection refused.*retrying \(1\/20\)/);
    expect((await approvals.get(id))!.status).toBe('EXECUTING');
    cluster.pollsToFinish = 1;
    expect(await tick(id)).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
  });

  it('Kafka refusing the reassignment for a reason a retry cannot change (authorization): FAILED at once, throttles removed', async () => {
    const id = await approvedRequest(await drainPlan());
    cluster.failNext = { method: 'alterPartitionReassignments', times: 1, error: wholeCallError('AlterPartitionReassignments', 31 /* CLUSTER_AUTHORIZATION_FAILED */) };
    const result = await tick(id);
    expect(result).toMatchObject({ kind: 'finished', status: 'FAILED' });
    expect((result as { summary: string }).summary).toMatch(/^failed at step 1 .*CLUSTER_AUTHORIZATION_FAILED: Cluster authorization failed; throttles removed$/);
    expect([...cluster.configs.values()].every((c) => ![...c.keys()].some((k) => k.includes('throttled')))).toBe(true);
  });

  it('throttles a broker refused to drop at the end are left to the sweep, which removes them', async () => {
    cluster.pollsToFinish = 1;
    const id = await approvedRequest(await drainPlan());
    // Removal fails twice: the remove-throttles step, then the terminal cleanup.
    const real = cluster.openAdmin.bind(cluster);
    let failRemovals = 2;
    cluster.openAdmin = async () => {
      const admin = await real();
      const alter = admin.incrementalAlterConfigs.bind(admin);
      admin.incrementalAlterConfigs = async (resources) => {
        if (resources.some((r) => r.type === 'topic' && r.ops.some((o) => o.op === 'subtract' || o.op === 'delete')) && failRemovals-- > 0) throw new Error('broker 3 unreachable');
        return alter(resources);
      };
      return admin;
    };
    const result = await tick(id);
    expect(result).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    const owed = (await approvals.get(id))!;
    expect(owed.run?.cleanupPending).toBe(true);
    expect(await approvals.listForSweep()).toContain(id);
    const cleaned = await cleanupFinishedRun(approvals, cluster, owed);
    expect(cleaned.complete).toBe(true);
    expect([...cluster.configs.values()].every((c) => ![...c.keys()].some((k) => k.includes('throttled')))).toBe(true);
    expect(await approvals.listForSweep()).not.toContain(id);
  });
});
