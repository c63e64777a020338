// Throttles a finished run of ours left behind (its cleanup pending: a broker
// refused the removal) are not the operator's. A new run on the same
// partitions must own what it throttles, and the sweep's cleanup of the old
// run must not take them away while the new run copies. Approvals and run
// state on dynalite, the cluster scripted (FakeCluster).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { partitionLookup } from '../../lib/kafka/partitions.ts';
import { planDrain } from '../../lib/operations/index.ts';
import { cleanupFinishedRun, runTick, type RunReporter, type TickResult } from '../../lib/operations/runner.ts';
import { LEDGER_NAME } from '../../lib/operations/throttle-handover.ts';
import { FOLLOWER_RATE, FOLLOWER_REPLICAS, LEADER_RATE, LEADER_REPLICAS, throttleLedgerFor, type ThrottleLedger } from '../../lib/operations/throttles.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { refusalText } from '../../lib/operations/render-text.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { FakeCluster } from './fake-cluster.ts';

let dynamo: LocalDynamo;
let approvals: ApprovalService<Plan>;
let cluster: FakeCluster;
let table = 0;
let lines: string[];
const POLICY = { approvers: new Set(['UALICE', 'UBOB']), requiredApprovals: 2, ttlMs: 600_000 };

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  const store = new ApprovalStore(dynamo.client, { tableName: `handover-${++table}` });
  await store.ensureTable();
  approvals = new ApprovalService<Plan>({ store, policy: POLICY });
  cluster = new FakeCluster().addTopic('orders', [[1, 2], [2, 3], [3, 1], [1, 3]]);
  lines = [];
});

const reporter: RunReporter = {
  async step(r) {
    lines.push(`step ${r.index} ${r.name} ${r.status}${r.detail ? `: ${r.detail}` : ''}`);
  },
  async progress() {},
  async finished(_r, o) {
    lines.push(`finished ${o.status}: ${o.summary}`);
  },
};

async function approved(plan: Plan): Promise<string> {
  const created = await approvals.request(plan, 'UREQ', { context: { cluster: 'fake' } });
  if (!created.ok) throw new Error(created.message);
  await approvals.approve(created.request.id, 'UALICE');
  await approvals.approve(created.request.id, 'UBOB');
  return created.request.id;
}

async function drainPlan(): Promise<Plan> {
  const planned = planDrain(await cluster.snapshot(null), { broker: 3, partial: true }, { throttleBytesPerSec: 1_048_576 });
  if (!planned.ok) throw new Error(refusalText(planned.refusal));
  return planned.plan;
}

/** One tick that parks after a single poll of the copy (no timing involved: the clock is scripted). */
function tick(id: string): Promise<TickResult> {
  let now = Date.now();
  return runTick({ approvals, io: cluster, requestId: id, workerId: `w-${Math.random().toString(36).slice(2, 8)}`, deadline: now + 5_000 + 1_000 + 1, pollMs: 1_000, scheduleNext: async () => {}, report: reporter, now: () => now, sleep: async (ms) => void (now += ms) });
}

/** Every removal of a throttle fails, as when the broker holding it is unreachable. */
function refuseRemovals(): () => void {
  const real = cluster.openAdmin.bind(cluster);
  cluster.openAdmin = async () => {
    const admin = await real();
    const alter = admin.incrementalAlterConfigs.bind(admin);
    admin.incrementalAlterConfigs = async (resources) => {
      if (resources.some((r) => r.ops.some((o) => o.op === 'subtract' || o.op === 'delete'))) throw new Error('broker 3 unreachable (scripted)');
      return alter(resources);
    };
    return admin;
  };
  return () => void (cluster.openAdmin = real);
}

/**
 * Run A copies (a copy that does not finish), is cancelled, and cannot remove its throttles: cleanup
 * pending, cluster lock released. Removals stay refused until `healed` is called.
 */
async function cancelledWithThrottlesLeft(): Promise<{ a: string; healed: () => void }> {
  cluster.pollsToFinish = 1_000;
  const a = await approved(await drainPlan());
  expect(await tick(a)).toMatchObject({ kind: 'parked' });
  await approvals.requestCancel(a, 'UALICE');
  const healed = refuseRemovals();
  expect(await tick(a)).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
  return { a, healed };
}

const throttleKeys = () => [...cluster.configs.entries()].flatMap(([resource, c]) => [...c.keys()].filter((k) => k.includes('throttled')).map((k) => `${resource} ${k}`));

describe('throttles left by a run whose cleanup is pending, and a new run on the same partitions', () => {
  it('the new run owns and keeps its throttles through the old run\'s cleanup; both done, nothing is left', async () => {
    // Run A copies, is cancelled, and cannot remove its throttles: cleanup pending, cluster lock released.
    const { a, healed } = await cancelledWithThrottlesLeft();
    healed();
    expect((await approvals.get(a))!.run?.cleanupPending).toBe(true);
    expect(throttleKeys().length).toBeGreaterThan(0);

    // Run B, the same drain planned again, starts on the same partitions and copies.
    const planB = await drainPlan();
    const before = partitionLookup(await cluster.snapshot(null));
    const b = await approved(planB);
    lines = [];
    expect(await tick(b)).toMatchObject({ kind: 'parked' });
    const reassign = lines.find((l) => l.startsWith('step 0 reassign ok'));
    expect(reassign, lines.join('\n')).toBeDefined();
    // Nothing there was set by an operator: the thread must not say B kept someone's rate.
    expect(reassign).not.toMatch(/kept/);

    // What B's copy needs throttled, from the replicas as they were before it started.
    const step = planB.steps.find((s) => s.action === 'reassign');
    if (step?.action !== 'reassign') throw new Error('no reassign step');
    const needed = throttleLedgerFor(step.partitions, (t, p) => before(t, p)?.replicas, 1_048_576);
    expect(needed.brokers.length).toBeGreaterThan(0);
    const inPlace = () => {
      const missing: string[] = [];
      for (const broker of needed.brokers) for (const k of [LEADER_RATE, FOLLOWER_RATE]) if (cluster.config(`broker:${broker}`).get(k) !== '1048576') missing.push(`broker ${broker} ${k}`);
      for (const t of needed.topics) {
        for (const [k, entries] of [[LEADER_REPLICAS, t.leader], [FOLLOWER_REPLICAS, t.follower]] as const) {
          const listed = (cluster.config(`topic:${t.topic}`).get(k) ?? '').split(',');
          for (const e of entries) if (!listed.includes(e)) missing.push(`${t.topic} ${k} ${e}`);
        }
      }
      return missing;
    };
    expect(inPlace()).toEqual([]);

    // The minute sweep cleans up after A while B still copies: B's throttles stay.
    await cleanupFinishedRun(approvals, cluster, (await approvals.get(a))!);
    expect(inPlace()).toEqual([]);
    expect((await approvals.get(b))!.status).toBe('EXECUTING');

    // B finishes; the sweep runs again for whatever is still owed: nothing throttled is left.
    cluster.pollsToFinish = 1;
    let result: TickResult = { kind: 'parked', cursor: 0, nextInMs: 0 };
    for (let i = 0; i < 10 && result.kind === 'parked'; i++) result = await tick(b);
    expect(result, lines.join('\n')).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    for (const id of [a, b]) {
      const r = (await approvals.get(id))!;
      if (r.run?.cleanupPending) expect((await cleanupFinishedRun(approvals, cluster, r)).complete).toBe(true);
    }
    expect(throttleKeys()).toEqual([]);
    const swept = await approvals.listForSweep();
    expect(swept).not.toContain(a);
    expect(swept).not.toContain(b);
  });

  it('a sweep that read the old run\'s ledger before the hand-over: the running run\'s throttles are set again after it', async () => {
    cluster.config('broker:2').set(LEADER_RATE, '777');
    const { a, healed } = await cancelledWithThrottlesLeft();
    healed();
    const leftByA = (await approvals.getRunData<ThrottleLedger>(a, LEDGER_NAME))!;
    const b = await approved(await drainPlan());
    lines = [];
    expect(await tick(b)).toMatchObject({ kind: 'parked' });
    // Only the operator's rate is named as kept, in words that say it is not ours.
    expect(lines.find((l) => l.startsWith('step 0 reassign ok'))).toMatch(/; broker 2 kept the rate set there outside these operations$/);
    const ownedByB = JSON.stringify(Object.fromEntries([...cluster.configs].map(([k, v]) => [k, Object.fromEntries(v)])));
    // The hand-over took A's leftovers out of its ledger; a sweep that had read it before still releases all of it.
    expect((await approvals.getRunData<ThrottleLedger>(a, LEDGER_NAME))!.brokers).toEqual([]);
    await approvals.putRunData(a, LEDGER_NAME, leftByA);
    await cleanupFinishedRun(approvals, cluster, (await approvals.get(a))!);
    expect(JSON.stringify(Object.fromEntries([...cluster.configs].map(([k, v]) => [k, Object.fromEntries(v)])))).toBe(ownedByB);
    expect(cluster.config('broker:2').get(LEADER_RATE)).toBe('777');
  });

  it('leftovers that still cannot be removed when the new run starts: it waits, records nothing, then owns its throttles', async () => {
    const { a, healed } = await cancelledWithThrottlesLeft();
    const b = await approved(await drainPlan());
    lines = [];
    expect(await tick(b)).toMatchObject({ kind: 'parked' });
    expect(await approvals.getRunData(b, LEDGER_NAME)).toBeNull();
    expect((await approvals.get(b))!.run?.cursor).toBe(0);
    healed();
    expect(await tick(b)).toMatchObject({ kind: 'parked' });
    const ledgerB = (await approvals.getRunData<ThrottleLedger>(b, LEDGER_NAME))!;
    expect(ledgerB.brokers.length).toBeGreaterThan(0);
    expect(ledgerB.operatorRateBrokers).toEqual([]);
    expect((await approvals.getRunData<ThrottleLedger>(a, LEDGER_NAME))!.brokers).toEqual([]);
  });
});
