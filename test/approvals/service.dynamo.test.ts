// ApprovalService + ApprovalStore against dynalite: every race here is decided
// by real DynamoDB conditional writes over HTTP.
import { randomBytes, randomUUID } from 'node:crypto';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApprovalPolicyConfigSchema,
  ApprovalService,
  ApprovalStore,
  resolvePolicy,
  type ApprovablePlan,
  type ApprovalRequest,
  type Lease,
  type RunState,
} from '../../lib/approvals/index.ts';
import { startLocalDynamo, type LocalDynamo } from './local-dynamodb.ts';

const MIN = 60_000;
const APPROVERS = ['UALICE', 'UBOB', 'UCAROL', 'UDAVE', 'UERIN'];
const OUTSIDER = 'UOUTSIDER';
const plan: ApprovablePlan = { id: 'plan-1', kind: 'drain', title: 'drain broker 2', fingerprint: 'a'.repeat(64) };
const policy = resolvePolicy(ApprovalPolicyConfigSchema.parse({ approverUserIds: APPROVERS }));

let dynamo: LocalDynamo;
let store: ApprovalStore;
let clock: number;
let service: ApprovalService;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
  store = new ApprovalStore(dynamo.client, { tableName: 'approvals-test' });
  await store.ensureTable();
  await store.ensureTable(); // idempotent
});
afterAll(async () => {
  await dynamo?.close();
});
beforeEach(() => {
  clock = Date.parse('2026-01-01T00:00:00Z');
  service = new ApprovalService({ store, policy, now: () => clock, leaseMs: 5 * MIN });
});

async function newRequestId(requester = OUTSIDER): Promise<string> {
  const r = await service.request(plan, requester, { context: { channel: 'C1', threadTs: '1.2' } });
  if (!r.ok) throw new Error(r.message);
  return r.request.id;
}

/** Asked by Alice, approved by Alice herself (she is an approver) and Bob. */
async function approvedId(): Promise<string> {
  const id = await newRequestId('UALICE');
  const own = await service.approve(id, 'UALICE');
  expect(own.ok && !own.readyToExecute).toBe(true);
  const r = await service.approve(id, 'UBOB');
  expect(r.ok && r.readyToExecute).toBe(true);
  return id;
}

describe('ApprovalService on DynamoDB (dynalite)', () => {
  it('runs the whole happy path and mirrors every event to an audit record', async () => {
    const id = await newRequestId();
    expect((await service.approve(id, 'UALICE', '1700000000.000001')).ok).toBe(true);
    const second = await service.approve(id, 'UBOB', '1700000000.000002');
    expect(second.ok && second.readyToExecute).toBe(true);
    const claim = await service.claimForExecution(id, 'worker-a');
    expect(claim.ok).toBe(true);
    expect((await service.recordStep(id, 'worker-a', { index: 0, name: 'reassign', status: 'ok' })).ok).toBe(true);
    const done = await service.finish(id, 'worker-a', 'SUCCEEDED', 'broker 3 leads orders-0');
    expect(done.ok).toBe(true);

    const stored = await service.get(id);
    expect(stored?.status).toBe('SUCCEEDED');
    expect(stored?.context).toEqual({ channel: 'C1', threadTs: '1.2' });
    const trail = await store.audit.trail(id);
    expect(trail.map((e) => e.type)).toEqual(['requested', 'approved', 'approved', 'claimed', 'step', 'succeeded']);
    expect(trail).toEqual(stored?.events);
  });

  it('50 concurrent approve clicks from several users → exactly one execution', async () => {
    const id = await newRequestId(OUTSIDER);
    let executions = 0;
    const clickers = [...APPROVERS, OUTSIDER, 'UMALLORY'];
    // Every click handler behaves like a worker that was handed the job too:
    // approve, then try to claim (retries, duplicate queue deliveries...).
    const clicks = Array.from({ length: 50 }, async (_, i) => {
      const user = clickers[i % clickers.length]!;
      const approved = await service.approve(id, user, `1700000000.${String(i).padStart(6, '0')}`);
      const claim = await service.claimForExecution(id, `worker-${i}`);
      if (claim.ok) {
        executions++;
        await service.finish(id, `worker-${i}`, 'SUCCEEDED', 'done');
      }
      return { user, approved };
    });
    const results = await Promise.all(clicks);

    expect(executions).toBe(1);
    const oks = results.filter((r) => r.approved.ok);
    expect(oks).toHaveLength(2);
    expect(new Set(oks.map((r) => r.user)).size).toBe(2);
    expect(oks.filter((r) => r.approved.ok && r.approved.readyToExecute)).toHaveLength(1);
    const refusals = new Set(results.filter((r) => !r.approved.ok).map((r) => (r.approved.ok ? '' : r.approved.code)));
    expect(refusals.has('contention')).toBe(false);
    expect([...refusals].every((c) => ['self-approval', 'unauthorized', 'duplicate-approval', 'already-approved', 'already-executed'].includes(c))).toBe(true);

    const final = await service.get(id);
    expect(final?.status).toBe('SUCCEEDED');
    expect(final?.approvals).toHaveLength(2);
    const trail = await store.audit.trail(id);
    expect(trail.map((e) => e.type)).toEqual(['requested', 'approved', 'approved', 'claimed', 'succeeded']);
    // Every refused click is noted; of the refused claims only those made before the approvals were in
    // (a worker finding the run already taken or done is a delivered-again job, not something to note).
    const notes = await store.audit.refusals(id);
    expect(notes.filter((n) => n.action === 'approve')).toHaveLength(48);
    expect(notes.filter((n) => n.action === 'claim').every((n) => !['already-executed', 'already-claimed'].includes(n.refusal.code))).toBe(true);
  });

  it('asking is never approving: the approver-requester clicks like anyone else, an outsider-requester cannot', async () => {
    const id = await newRequestId('UALICE');
    expect((await store.get(id))?.approvals).toEqual([]);
    const bob = await service.approve(id, 'UBOB');
    expect(bob.ok && bob.request.status).toBe('REQUESTED');
    expect(await service.claimForExecution(id, 'w1')).toMatchObject({ ok: false, code: 'not-approved' });
    const alice = await service.approve(id, 'UALICE');
    expect(alice.ok && alice.readyToExecute).toBe(true);
    expect((await store.get(id))?.approvals.map((a) => a.user)).toEqual(['UBOB', 'UALICE']);

    const outsiders = await newRequestId(OUTSIDER);
    expect(await service.approve(outsiders, OUTSIDER)).toMatchObject({ ok: false, code: 'self-approval' });
    expect((await store.get(outsiders))?.approvals).toEqual([]);
  });

  it('a double click by one user counts once', async () => {
    const id = await newRequestId(OUTSIDER);
    const both = await Promise.all([service.approve(id, 'UCAROL', '1700000000.000009'), service.approve(id, 'UCAROL', '1700000000.000009')]);
    expect(both.filter((r) => r.ok)).toHaveLength(1);
    const refused = both.find((r) => !r.ok);
    expect(refused && !refused.ok && refused.code).toBe('duplicate-approval');
    const stored = await service.get(id);
    expect(stored?.approvals.map((a) => a.user)).toEqual(['UCAROL']);
    expect(stored?.status).toBe('REQUESTED');
  });

  it('two approvers at the same instant: both count, the request is approved once', async () => {
    const id = await newRequestId(OUTSIDER);
    const [a, b] = await Promise.all([service.approve(id, 'UDAVE'), service.approve(id, 'UERIN')]);
    expect(a.ok && b.ok).toBe(true);
    expect([a, b].filter((r) => r.ok && r.readyToExecute)).toHaveLength(1);
    expect((await service.get(id))?.status).toBe('APPROVED');
  });

  it('two workers claiming at once: one runs, the other is told it is already claimed', async () => {
    const id = await approvedId();
    const claims = await Promise.all([service.claimForExecution(id, 'w1'), service.claimForExecution(id, 'w2')]);
    expect(claims.filter((c) => c.ok)).toHaveLength(1);
    const loser = claims.find((c) => !c.ok);
    expect(loser && !loser.ok && loser.code).toBe('already-claimed');
  });

  it('a crashed run stays EXECUTING with a lapsed lease and is never claimed again', async () => {
    const id = await approvedId();
    expect((await service.claimForExecution(id, 'w1')).ok).toBe(true);
    clock += 60 * MIN; // w1 died: no step, no heartbeat
    const retry = await service.claimForExecution(id, 'w2');
    expect(retry.ok).toBe(false);
    if (!retry.ok) {
      expect(retry.code).toBe('lease-expired');
      expect(retry.request?.status).toBe('EXECUTING');
      expect(retry.request?.lease?.owner).toBe('w1');
    }
    expect((await service.get(id))?.status).toBe('EXECUTING');
    const abandoned = await service.abandon(id, 'UCAROL', 'checked by hand');
    expect(abandoned.ok && abandoned.request.status).toBe('FAILED');
  });

  it('heartbeats keep the lease of its owner only', async () => {
    const id = await approvedId();
    await service.claimForExecution(id, 'w1');
    clock += 4 * MIN;
    expect(await service.heartbeat(id, 'w1')).toBe(true);
    expect(await service.heartbeat(id, 'w2')).toBe(false);
    clock += 4 * MIN; // past the original lease, within the renewed one
    const other = await service.claimForExecution(id, 'w2');
    expect(!other.ok && other.code).toBe('already-claimed');
  });

  it('expires on read after the TTL and refuses late approvals', async () => {
    const id = await newRequestId('UALICE');
    clock += 31 * MIN;
    const late = await service.approve(id, 'UBOB');
    expect(!late.ok && late.code).toBe('expired');
    expect(!late.ok && late.request?.status).toBe('EXPIRED');
    expect((await service.get(id))?.status).toBe('EXPIRED');
    expect((await store.audit.trail(id)).map((e) => e.type)).toEqual(['requested', 'expired']);
  });

  it('a stale plan ends STALE and is not run again', async () => {
    const id = await approvedId();
    await service.claimForExecution(id, 'w1');
    const stale = await service.finish(id, 'w1', 'STALE', 'partition has a leader again');
    expect(stale.ok && stale.request.status).toBe('STALE');
    const again = await service.claimForExecution(id, 'w2');
    expect(!again.ok && again.code).toBe('already-executed');
    const retriedFinish = await service.finish(id, 'w1', 'SUCCEEDED', 'retry');
    expect(!retriedFinish.ok && retriedFinish.code).toBe('already-executed');
  });

  it('reject racing approvals: once rejected, nothing runs', async () => {
    const id = await newRequestId(OUTSIDER);
    const results = await Promise.all([
      service.reject(id, 'UCAROL', 'no'),
      ...APPROVERS.filter((u) => u !== 'UCAROL').map((u) => service.approve(id, u)),
    ]);
    const final = await service.get(id);
    if (results[0]!.ok) {
      expect(final?.status).toBe('REJECTED');
      expect(!(await service.claimForExecution(id, 'w1')).ok).toBe(true);
    } else {
      // The approvals won the race to APPROVED, then the reject landed on an approved request or lost.
      expect(['APPROVED', 'REJECTED']).toContain(final?.status);
    }
  });

  it('the requester cancels; others cannot', async () => {
    const id = await newRequestId(OUTSIDER);
    const other = await service.cancel(id, 'UALICE');
    expect(!other.ok && other.code).toBe('not-requester');
    const mine = await service.cancel(id, OUTSIDER);
    expect(mine.ok && mine.request.status).toBe('CANCELLED');
  });

  it('rejects bad input before touching the table', async () => {
    expect(await service.approve('x; drop', 'UALICE')).toMatchObject({ ok: false, code: 'invalid-input' });
    expect(await service.approve(randomUUID(), 'alice')).toMatchObject({ ok: false, code: 'invalid-input' });
    expect(await service.approve(randomUUID(), 'UALICE')).toMatchObject({ ok: false, code: 'not-found' });
    expect(await service.request(plan, 'nobody')).toMatchObject({ ok: false, code: 'invalid-input' });
  });

  it('answers the same request under its id again with the stored one, refuses another plan there and a plan too large to store', async () => {
    const id = randomUUID();
    const first = await service.request(plan, 'UALICE', { id });
    expect(first.ok).toBe(true);
    // A retried job: the same request again is not a duplicate (test/approvals/plan-retry.dynamo.test.ts).
    expect(await service.request(plan, 'UALICE', { id })).toMatchObject({ ok: true, request: { version: 1, createdAt: first.ok ? first.request.createdAt : -1 } });
    expect(await service.request({ ...plan, fingerprint: 'e'.repeat(64) }, 'UALICE', { id })).toMatchObject({ ok: false, code: 'invalid-input' });
    const huge = { ...plan, steps: 'x'.repeat(33_000_000) };
    expect(await service.request(huge, 'UALICE')).toMatchObject({ ok: false, code: 'plan-too-large' });
  });

  it('stores a megabyte plan gzipped in chunks and returns exactly what was approved', async () => {
    // A drain of a big broker: tens of thousands of partitions.
    const moves = Array.from({ length: 40_000 }, (_, i) => ({ topic: `topic-${i % 997}`, partition: i, replicas: [i % 7, (i + 1) % 7, (i + 2) % 7] }));
    const big = { ...plan, moves };
    expect(JSON.stringify(big).length).toBeGreaterThan(1_000_000);
    const created = await service.request(big, 'UALICE');
    if (!created.ok) throw new Error(created.message);
    const id = created.request.id;
    expect((await service.approve(id, 'UALICE')).ok).toBe(true);
    const approved = await service.approve(id, 'UBOB');
    expect(approved.ok && approved.readyToExecute).toBe(true);
    const claimed = await service.claimForExecution(id, 'w1');
    // toEqual's verdict on a megabyte of plain JSON data, fast: equal JSON text is equal; anything else goes to toEqual.
    const expectBig = (actual: unknown) => void (JSON.stringify(actual) === JSON.stringify(big) || expect(actual).toEqual(big));
    expectBig(claimed.ok && claimed.request.plan);
    expectBig((await service.get(id))?.plan);
  });

  it('an inline plan edited in the table after its approvals is refused at claim: nothing runs', async () => {
    const id = await approvedId();
    // Someone with write access to the table swaps the target broker after the two approvals.
    await dynamo.client.send(
      new UpdateItemCommand({
        TableName: 'approvals-test',
        Key: { pk: { S: `REQ#${id}` }, sk: { S: 'STATE' } },
        UpdateExpression: 'SET #plan.#title = :t',
        ExpressionAttributeNames: { '#plan': 'plan', '#title': 'title' },
        ExpressionAttributeValues: { ':t': { S: 'drain broker 1' } },
      }),
    );
    const claim = await service.claimForExecution(id, 'worker-a');
    expect(claim.ok ? 'claimed' : claim.code).toBe('plan-altered');
    expect((await service.get(id))?.status).toBe('APPROVED');
    expect((await service.acquireExecution(id, 'worker-b')).ok).toBe(false);
  });

  it('a write decided from an old version loses (optimistic concurrency in the store itself)', async () => {
    const id = await newRequestId(OUTSIDER);
    const before = (await store.get(id))!;
    expect((await service.approve(id, 'UALICE')).ok).toBe(true);
    const forged = { ...before, status: 'APPROVED' as const, version: before.version + 1 };
    const event = { requestId: id, seq: forged.version, at: clock, type: 'approved' as const, actor: 'UBOB', message: 'forged' };
    expect(await store.transition(before, forged, event)).toBe(false);
    expect((await store.get(id))?.status).toBe('REQUESTED');
  });

  it('the approver set in DynamoDB refuses the same user even with a matching version', async () => {
    const id = await newRequestId(OUTSIDER);
    await service.approve(id, 'UALICE');
    const current = (await store.get(id))!;
    const next = { ...current, version: current.version + 1 };
    const event = { requestId: id, seq: next.version, at: clock, type: 'approved' as const, actor: 'UALICE', message: 'again' };
    expect(await store.transition(current, next, event, { addApprover: 'UALICE' })).toBe(false);
  });
});

// ---------------------------------------------------------------- durable runs

/** Claimed by `worker` through acquireExecution, as the first tick of a run does. */
async function executingId(worker = 'w1'): Promise<string> {
  const id = await approvedId();
  const first = await service.acquireExecution(id, worker);
  expect(first.ok).toBe(true);
  return id;
}

function runAt(cursor: number, extra: Partial<RunState> = {}): RunState {
  return { cursor, checked: true, startedAt: clock, stepStartedAt: clock, invocations: 1, ...extra };
}

function leaseOf(owner: string, until: number, parked = false): Lease {
  return { owner, claimedAt: clock, until, ...(parked ? { parked: true } : {}) };
}

/** Everything the winner of a race must see, and the losers must not have changed. */
function onlyOne<T extends { ok: boolean }>(results: T[]): T {
  const winners = results.filter((r) => r.ok);
  expect(winners).toHaveLength(1);
  return winners[0]!;
}

function codes(results: { ok: boolean; code?: string }[]): string[] {
  return [...new Set(results.filter((r) => !r.ok).map((r) => r.code!))];
}

/**
 * The real store, with a one-shot pause between a service call's read and its
 * conditional write, so an interleaving that a plain race hits only sometimes is
 * produced every time. The write itself is dynalite's, untouched.
 */
class InterleavingStore extends ApprovalStore {
  beforeTransition: (() => Promise<void>) | null = null;
  afterTakeLease: (() => Promise<void>) | null = null;
  override async transition(...args: Parameters<ApprovalStore['transition']>): Promise<boolean> {
    const hook = this.beforeTransition;
    this.beforeTransition = null;
    if (hook) await hook();
    return super.transition(...args);
  }
  override async takeLease(...args: Parameters<ApprovalStore['takeLease']>): Promise<boolean> {
    const taken = await super.takeLease(...args);
    const hook = this.afterTakeLease;
    this.afterTakeLease = null;
    if (hook) await hook();
    return taken;
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('durable runs on DynamoDB (dynalite)', () => {
  it('acquireExecution: 20 concurrent callers on an APPROVED request → exactly one claim', async () => {
    const id = await approvedId();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => service.acquireExecution(id, `w${i}`)));
    const winner = onlyOne(results);
    expect(codes(results)).toEqual(['already-claimed']);
    expect(winner.ok && winner.resumedAfterDeath).toBeFalsy();
    const owner = winner.ok ? winner.event.actor : '';
    const stored = (await store.get(id))!;
    expect(stored.status).toBe('EXECUTING');
    expect(stored.lease).toEqual({ owner, claimedAt: clock, until: clock + 5 * MIN });
    expect(stored.run).toEqual({ cursor: 0, checked: false, startedAt: clock, stepStartedAt: clock, invocations: 1 });
    expect((await store.audit.trail(id)).map((e) => e.type)).toEqual(['requested', 'approved', 'approved', 'claimed']);
  });

  it('acquireExecution: a live lease held by another worker is refused and left alone', async () => {
    const id = await executingId('w1');
    const before = (await store.get(id))!;
    clock += 4 * MIN; // still within w1's 5-minute lease
    const other = await service.acquireExecution(id, 'w2');
    expect(other).toMatchObject({ ok: false, code: 'already-claimed' });
    expect(await store.get(id)).toEqual(before);
  });

  it('acquireExecution: 20 concurrent takeovers of a parked lease → one winner, no audit event, progress kept', async () => {
    const id = await executingId('w0');
    expect((await service.recordStep(id, 'w0', { index: 0, name: 'reassign', status: 'ok' }, runAt(1))).ok).toBe(true);
    // The step waits for hours: w0 saves its progress, parks the run and ends its invocation.
    // A parked lease may be taken before its `until`: nobody is running.
    expect(await service.saveRun(id, 'w0', runAt(1, { progress: { text: '40% copied', at: clock } }), leaseOf('w0', clock + 30 * MIN, true))).toBe(true);
    const parked = (await store.get(id))!;
    clock += MIN;

    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => service.acquireExecution(id, `w${i + 1}`)));
    const winner = onlyOne(results);
    expect(codes(results)).toEqual(['already-claimed']);
    expect(winner.ok && winner.resumedAfterDeath).toBeFalsy();
    const owner = winner.ok ? winner.request.lease!.owner : '';
    expect(owner).toMatch(/^w([1-9]|1\d|20)$/);

    const stored = (await store.get(id))!;
    expect(stored.version).toBe(parked.version); // routine: no version bump, no event
    expect(stored.events).toEqual(parked.events);
    expect(stored.lease).toEqual({ owner, claimedAt: clock, until: clock + 5 * MIN }); // no longer parked
    expect(stored.run).toEqual({ ...parked.run, invocations: 2 });
    expect((await store.audit.trail(id)).map((e) => e.type)).not.toContain('resumed');
    // The worker that parked has no say any more; the new one goes on.
    expect(await service.saveRun(id, 'w0', runAt(5), leaseOf('w0', clock + MIN))).toBe(false);
    expect(await service.heartbeat(id, 'w0')).toBe(false);
    expect((await service.recordStep(id, owner, { index: 1, name: 'verify', status: 'ok' }, runAt(2, { invocations: 2 }))).ok).toBe(true);
  });

  it('acquireExecution: the worker that parked a run may take it back itself', async () => {
    const id = await executingId('w1');
    expect(await service.saveRun(id, 'w1', runAt(0), leaseOf('w1', clock + 10 * MIN, true))).toBe(true);
    const again = await service.acquireExecution(id, 'w1');
    expect(again.ok && !again.resumedAfterDeath).toBe(true);
    expect((await store.get(id))?.run?.invocations).toBe(2);
  });

  it('acquireExecution: an expired lease (worker died) → one of 20 takes over, audited as resumed', async () => {
    const id = await executingId('w0');
    expect((await service.recordStep(id, 'w0', { index: 0, name: 'reassign', status: 'ok' }, runAt(1))).ok).toBe(true);
    clock += 60 * MIN; // w0 died: no step, no heartbeat, no park
    const versionBefore = (await store.get(id))!.version;

    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => service.acquireExecution(id, `w${i + 1}`)));
    const winner = onlyOne(results);
    expect(codes(results)).toEqual(['already-claimed']);
    if (!winner.ok) throw new Error('unreachable');
    expect(winner.resumedAfterDeath).toBe(true);
    const owner = winner.request.lease!.owner;
    expect(winner.event).toMatchObject({ type: 'resumed', actor: owner, seq: versionBefore + 1 });
    expect(winner.event.message).toMatch(/at step 2/);

    const stored = (await store.get(id))!;
    expect(stored.status).toBe('EXECUTING');
    expect(stored.version).toBe(versionBefore + 1);
    expect(stored.lease).toEqual({ owner, claimedAt: clock, until: clock + 5 * MIN });
    expect(stored.run).toMatchObject({ cursor: 1, invocations: 2 });
    const trail = await store.audit.trail(id);
    expect(trail.filter((e) => e.type === 'resumed')).toHaveLength(1);
    expect(trail.map((e) => e.type).slice(-3)).toEqual(['claimed', 'step', 'resumed']);
    expect(trail).toEqual(stored.events);
    // The dead worker, should it come back, can do nothing.
    expect(await service.recordStep(id, 'w0', { index: 1, name: 'x', status: 'ok' })).toMatchObject({ ok: false, code: 'not-lease-owner' });
    expect(await service.finish(id, 'w0', 'SUCCEEDED', 'x')).toMatchObject({ ok: false, code: 'not-lease-owner' });
    expect(await service.saveRun(id, 'w0', runAt(9), leaseOf('w0', clock + MIN))).toBe(false);
    // Nor can a human abandon a run that a live worker holds again.
    expect(await service.abandon(id, 'UCAROL')).toMatchObject({ ok: false, code: 'lease-active' });
  });

  it('a presumed-dead worker whose step lands after the takeover took the lease loses; the new worker runs', async () => {
    const slow = new InterleavingStore(dynamo.client, { tableName: 'approvals-test' });
    const svc = new ApprovalService({ store: slow, policy, now: () => clock, leaseMs: 5 * MIN });
    const id = await executingId('w1');
    clock += 60 * MIN;
    // w1 decided its step from a read made before w2 took the lease; its write lands after
    // w2's takeLease (which bumps no version) and before w2 audits the takeover.
    const taken = deferred();
    const w1Wrote = deferred();
    let w2: ReturnType<typeof svc.acquireExecution> | undefined;
    slow.beforeTransition = async () => {
      slow.afterTakeLease = async () => {
        taken.resolve();
        await w1Wrote.promise;
      };
      w2 = svc.acquireExecution(id, 'w2');
      await taken.promise;
    };
    const w1 = await svc.recordStep(id, 'w1', { index: 0, name: 'reassign', status: 'ok' }, runAt(1));
    w1Wrote.resolve();
    expect(w1).toMatchObject({ ok: false, code: 'not-lease-owner' });
    expect(await w2!).toMatchObject({ ok: true, resumedAfterDeath: true });
    const stored = (await store.get(id))!;
    expect(stored.lease?.owner).toBe('w2');
    expect(stored.run).toMatchObject({ cursor: 0, invocations: 2 });
    expect(stored.events.map((e) => e.type).slice(-2)).toEqual(['claimed', 'resumed']);
  });

  it('a takeover that lands while a presumed-dead worker decides its step: the slow worker loses', async () => {
    const slow = new InterleavingStore(dynamo.client, { tableName: 'approvals-test' });
    const svc = new ApprovalService({ store: slow, policy, now: () => clock, leaseMs: 5 * MIN });
    const id = await executingId('w1');
    clock += 60 * MIN;
    let w2: Awaited<ReturnType<typeof svc.acquireExecution>> | undefined;
    slow.beforeTransition = async () => {
      w2 = await svc.acquireExecution(id, 'w2');
    };
    const w1 = await svc.recordStep(id, 'w1', { index: 0, name: 'reassign', status: 'ok' }, runAt(1));
    expect(w2).toMatchObject({ ok: true, resumedAfterDeath: true });
    expect(w1).toMatchObject({ ok: false, code: 'not-lease-owner' });
    expect((await store.get(id))?.lease?.owner).toBe('w2');
  });

  it('abandon decided from an expired parked lease loses to a tick that takes the run over meanwhile', async () => {
    const slow = new InterleavingStore(dynamo.client, { tableName: 'approvals-test' });
    const svc = new ApprovalService({ store: slow, policy, now: () => clock, leaseMs: 5 * MIN });
    const id = await executingId('w1');
    expect(await svc.saveRun(id, 'w1', runAt(2), leaseOf('w1', clock + MIN, true))).toBe(true);
    clock += 10 * MIN; // the scheduled tick was lost: parked, and past its lease
    let w2: Awaited<ReturnType<typeof svc.acquireExecution>> | undefined;
    slow.beforeTransition = async () => {
      w2 = await svc.acquireExecution(id, 'w2');
    };
    const abandoned = await svc.abandon(id, 'UCAROL', 'looks dead');
    expect(w2).toMatchObject({ ok: true });
    expect(abandoned).toMatchObject({ ok: false, code: 'lease-active' });
    const stored = (await store.get(id))!;
    expect(stored.status).toBe('EXECUTING');
    expect(stored.lease?.owner).toBe('w2');
    expect(stored.run).toMatchObject({ cursor: 2, invocations: 2 });
  });

  it('abandon decided from an expired lease loses to a heartbeat of its owner meanwhile', async () => {
    const slow = new InterleavingStore(dynamo.client, { tableName: 'approvals-test' });
    const svc = new ApprovalService({ store: slow, policy, now: () => clock, leaseMs: 5 * MIN });
    const id = await executingId('w1');
    clock += 10 * MIN; // w1 was slow, not dead
    slow.beforeTransition = async () => {
      expect(await svc.heartbeat(id, 'w1')).toBe(true);
    };
    expect(await svc.abandon(id, 'UCAROL')).toMatchObject({ ok: false, code: 'lease-active' });
    expect((await store.get(id))?.status).toBe('EXECUTING');
    expect((await svc.recordStep(id, 'w1', { index: 0, name: 'reassign', status: 'ok' })).ok).toBe(true);
  });

  it('saveRun: only the lease owner, only while running, and without a version bump', async () => {
    const id = await executingId('w1');
    const before = (await store.get(id))!;
    // Another worker, whatever lease it claims to hold.
    expect(await service.saveRun(id, 'w2', runAt(3), leaseOf('w2', clock + MIN))).toBe(false);
    expect(await service.saveRun(id, 'w2', runAt(3), leaseOf('w1', clock + MIN))).toBe(false);
    // The owner cannot hand its lease to someone else through saveRun either.
    expect(await service.saveRun(id, 'w1', runAt(3), leaseOf('w2', clock + MIN))).toBe(false);
    // And the condition holds in DynamoDB itself, not only in the service's check.
    expect(await store.saveRun(id, 'w2', runAt(3), leaseOf('w2', clock + MIN))).toBe(false);
    expect(await store.get(id)).toEqual(before);

    const mine = runAt(3, { progress: { text: 'copying', at: clock, data: { pct: 40 } }, data: { errors: 0 } });
    expect(await service.saveRun(id, 'w1', mine, leaseOf('w1', clock + 7 * MIN))).toBe(true);
    const saved = (await store.get(id))!;
    expect(saved.run).toEqual(mine);
    expect(saved.lease).toEqual(leaseOf('w1', clock + 7 * MIN));
    expect(saved.version).toBe(before.version);
    expect(saved.events).toEqual(before.events);

    expect((await service.finish(id, 'w1', 'SUCCEEDED', 'done')).ok).toBe(true);
    expect(await service.saveRun(id, 'w1', runAt(4), leaseOf('w1', clock + MIN))).toBe(false);
    expect((await store.get(id))?.run).toEqual(mine);
  });

  it('recordStep stores the run it is given with the lease it asks for; finish keeps or replaces it', async () => {
    const id = await executingId('w1');
    const step = await service.recordStep(id, 'w1', { index: 0, name: 'reassign', status: 'ok' }, runAt(1), 20 * MIN);
    expect(step.ok).toBe(true);
    expect((await store.get(id))?.run).toEqual(runAt(1));
    expect((await store.get(id))?.lease?.until).toBe(clock + 20 * MIN);
    const done = await service.finish(id, 'w1', 'FAILED', 'broker refused', { cursor: 1 }, runAt(1, { cleanupPending: true }));
    expect(done.ok && done.event).toMatchObject({ type: 'failed', data: { cursor: 1 } });
    expect((await store.get(id))?.run).toEqual(runAt(1, { cleanupPending: true }));
  });

  it('requestCancel racing saveRun keeps both: the cursor saved and the cancel requested', async () => {
    // Deterministic: the cancel is decided from a read made before the save and written after it.
    const slow = new InterleavingStore(dynamo.client, { tableName: 'approvals-test' });
    const svc = new ApprovalService({ store: slow, policy, now: () => clock, leaseMs: 5 * MIN });
    const id = await executingId('w1');
    const progressed = runAt(7, { progress: { text: '7 of 9 moved', at: clock }, data: { errors: 0 } });
    // Within one invocation the lease runs to the invocation's deadline: progress saves leave it as it is,
    // so the cancel's write is not refused and must itself leave the run alone.
    const lease = (await store.get(id))!.lease!;
    slow.beforeTransition = async () => {
      expect(await svc.saveRun(id, 'w1', progressed, lease)).toBe(true);
    };
    const cancel = await svc.requestCancel(id, 'UCAROL', 'wrong broker');
    expect(cancel.ok).toBe(true);
    const stored = (await store.get(id))!;
    expect(stored.run).toEqual(progressed);
    expect(stored.lease).toEqual(lease);
    expect(stored.cancelRequested).toEqual({ user: 'UCAROL', at: clock, reason: 'wrong broker' });
    expect(stored.events.at(-1)).toMatchObject({ type: 'cancel-requested', actor: 'UCAROL' });
    expect((await store.audit.trail(id)).at(-1)?.type).toBe('cancel-requested');

    // A save that also moves the lease on makes the cancel re-decide from a fresh read: both kept too.
    const id2 = await executingId('w1');
    const moved = leaseOf('w1', clock + 9 * MIN);
    slow.beforeTransition = async () => {
      expect(await svc.saveRun(id2, 'w1', progressed, moved)).toBe(true);
    };
    expect((await svc.requestCancel(id2, 'UCAROL')).ok).toBe(true);
    const stored2 = (await store.get(id2))!;
    expect(stored2.run).toEqual(progressed);
    expect(stored2.lease).toEqual(moved);
    expect(stored2.cancelRequested?.user).toBe('UCAROL');

    // And as a plain race, many times over: whatever the order, neither write is lost.
    const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => executingId(`r${i}`)));
    await Promise.all(
      ids.map(async (rid, i) => {
        const [saved, cancelled] = await Promise.all([
          service.saveRun(rid, `r${i}`, runAt(i + 1), leaseOf(`r${i}`, clock + 6 * MIN)),
          service.requestCancel(rid, APPROVERS[i % APPROVERS.length]!),
        ]);
        expect(saved).toBe(true);
        expect(cancelled.ok).toBe(true);
        const after = (await store.get(rid))!;
        expect(after.run?.cursor).toBe(i + 1);
        expect(after.lease?.until).toBe(clock + 6 * MIN);
        expect(after.cancelRequested?.user).toBe(APPROVERS[i % APPROVERS.length]);
      }),
    );
  });

  it('requestCancel: any one approver, once, only while running', async () => {
    const approved = await approvedId();
    expect(await service.requestCancel(approved, 'UCAROL')).toMatchObject({ ok: false, code: 'not-executing' });
    const id = await executingId('w1');
    expect(await service.requestCancel(id, 'UMALLORY')).toMatchObject({ ok: false, code: 'unauthorized' });
    expect(await service.requestCancel(id, 'not a user')).toMatchObject({ ok: false, code: 'invalid-input' });
    const concurrent = await Promise.all(APPROVERS.map((u) => service.requestCancel(id, u)));
    const first = onlyOne(concurrent);
    expect(codes(concurrent)).toEqual(['duplicate-approval']);
    const stored = (await store.get(id))!;
    expect(stored.cancelRequested?.user).toBe(first.ok ? first.event.actor : '');
    expect(stored.events.filter((e) => e.type === 'cancel-requested')).toHaveLength(1);
    expect(stored.status).toBe('EXECUTING');
  });

  it('finish CANCELLED after a cancel request: CANCELLED, audited, nothing runs again', async () => {
    const id = await executingId('w1');
    expect((await service.requestCancel(id, 'UDAVE', 'stop')).ok).toBe(true);
    const done = await service.finish(id, 'w1', 'CANCELLED', 'cancelled by <@UDAVE> at step 1 of 2; throttles removed', undefined, runAt(0));
    expect(done.ok && done.request.status).toBe('CANCELLED');
    const stored = (await service.get(id))!;
    expect(stored.status).toBe('CANCELLED');
    expect(stored.outcome).toMatchObject({ status: 'CANCELLED', summary: 'cancelled by <@UDAVE> at step 1 of 2; throttles removed' });
    expect(stored.cancelRequested).toMatchObject({ user: 'UDAVE', reason: 'stop' });
    const trail = await store.audit.trail(id);
    expect(trail.map((e) => e.type)).toEqual(['requested', 'approved', 'approved', 'claimed', 'cancel-requested', 'cancelled']);
    expect(trail).toEqual(stored.events);
    expect(await service.finish(id, 'w1', 'SUCCEEDED', 'again')).toMatchObject({ ok: false, code: 'already-executed' });
    expect((await service.acquireExecution(id, 'w2')).ok).toBe(false);
    expect(await service.requestCancel(id, 'UCAROL')).toMatchObject({ ok: false });
    expect((await store.get(id))?.version).toBe(stored.version);
  });

  it('listForSweep lists open, running and cleanup-owing requests, oldest first, and drops them once done', async () => {
    const sweepStore = new ApprovalStore(dynamo.client, { tableName: `sweep-${randomUUID()}` });
    await sweepStore.ensureTable();
    const svc = new ApprovalService({ store: sweepStore, policy, now: () => clock, leaseMs: 5 * MIN });
    const make = async (name: string, steps: (id: string) => Promise<unknown>) => {
      clock += 1_000; // distinct creation times: the index is ordered by them
      const r = await svc.request(plan, 'UALICE', { id: name });
      if (!r.ok) throw new Error(r.message);
      await steps(name);
      return name;
    };
    const ok = async (p: Promise<{ ok: boolean }>) => expect((await p).ok).toBe(true);
    const approve = async (id: string) => {
      await ok(svc.approve(id, 'UALICE'));
      await ok(svc.approve(id, 'UBOB'));
    };
    const execute = async (id: string) => {
      await approve(id);
      await ok(svc.acquireExecution(id, `w-${id}`));
    };
    const start = clock;
    const requested = await make('requested', async () => {});
    const approved = await make('approved', approve);
    const running = await make('running', execute);
    const parked = await make('parked', async (id) => {
      await execute(id);
      expect(await svc.saveRun(id, `w-${id}`, runAt(1), leaseOf(`w-${id}`, clock + MIN, true))).toBe(true);
    });
    const cancelAsked = await make('cancel-asked', async (id) => {
      await execute(id);
      await ok(svc.requestCancel(id, 'UCAROL'));
    });
    const owesCleanup = await make('owes-cleanup', async (id) => {
      await execute(id);
      await ok(svc.finish(id, `w-${id}`, 'FAILED', 'throttles left', undefined, runAt(1, { cleanupPending: true })));
    });
    const abandoned = await make('abandoned', async (id) => {
      await execute(id);
      clock += 10 * MIN;
      await ok(svc.abandon(id, 'UCAROL', 'worker died'));
    });
    const closed = [
      await make('succeeded', async (id) => {
        await execute(id);
        await ok(svc.finish(id, `w-${id}`, 'SUCCEEDED', 'done', undefined, runAt(2)));
      }),
      await make('cancelled-running', async (id) => {
        await execute(id);
        await ok(svc.finish(id, `w-${id}`, 'CANCELLED', 'cancelled'));
      }),
      await make('stale', async (id) => {
        await execute(id);
        await ok(svc.finish(id, `w-${id}`, 'STALE', 'changed'));
      }),
      await make('rejected', (id) => ok(svc.reject(id, 'UCAROL'))),
      await make('withdrawn', (id) => ok(svc.cancel(id, 'UALICE'))),
    ];
    const expired = await make('expired', async () => {});
    clock += 31 * MIN;
    await ok(svc.expire(expired));
    // `requested` and `approved` are past their deadline now too, but nobody expired them yet:
    // the sweep must still see them, to expire them.
    expect(clock - start).toBeGreaterThan(30 * MIN);

    // An expired request stays in view until its plan message says so (a worker may die in between).
    expect(await svc.listForSweep()).toEqual([requested, approved, running, parked, cancelAsked, owesCleanup, abandoned, expired]);
    expect(await svc.markExpiryShown(expired)).toBe(true);
    expect(await svc.markExpiryShown(running)).toBe(false);
    const listed = await svc.listForSweep();
    expect(listed).toEqual([requested, approved, running, parked, cancelAsked, owesCleanup, abandoned]);
    for (const id of [...closed, expired]) expect(listed).not.toContain(id);
    expect((await sweepStore.get(abandoned))?.run?.cleanupPending).toBe(true);

    // Cleanup done: the request leaves the index. Open and running requests cannot be dropped.
    expect(await svc.clearCleanup(owesCleanup)).toBe(true);
    expect(await svc.clearCleanup(abandoned)).toBe(true);
    expect(await svc.clearCleanup(running)).toBe(false);
    expect((await sweepStore.get(owesCleanup))?.run?.cleanupPending).toBe(false);
    expect((await sweepStore.get(owesCleanup))?.status).toBe('FAILED');
    // A read that expires an open request keeps it in view until its expiry is shown.
    expect((await svc.get(requested))?.status).toBe('EXPIRED');
    expect(await svc.listForSweep()).toEqual([requested, approved, running, parked, cancelAsked]);
    await svc.markExpiryShown(requested);
    expect(await svc.listForSweep()).toEqual([approved, running, parked, cancelAsked]);
    expect(await svc.listForSweep(2)).toEqual([approved, running]);
  });

  it('listForSweep pages through the index past one query page', async () => {
    const sweepStore = new ApprovalStore(dynamo.client, { tableName: `sweep-${randomUUID()}` });
    await sweepStore.ensureTable();
    const svc = new ApprovalService({ store: sweepStore, policy, now: () => clock });
    const ids: string[] = [];
    for (let i = 0; i < 230; i++) {
      clock += 1;
      const r = await svc.request(plan, 'UALICE', { id: `open-${String(i).padStart(3, '0')}` });
      if (!r.ok) throw new Error(r.message);
      ids.push(r.request.id);
    }
    expect(await svc.listForSweep()).toEqual(ids);
    expect(await svc.listForSweep(150)).toEqual(ids.slice(0, 150));
    expect(await svc.listForSweep(100)).toEqual(ids.slice(0, 100));
  });

  it('the sweep reads every pending request, past 500, and resumes after any request it handled', async () => {
    const sweepStore = new ApprovalStore(dynamo.client, { tableName: `sweep-${randomUUID()}` });
    await sweepStore.ensureTable();
    const svc = new ApprovalService({ store: sweepStore, policy, now: () => clock });
    const ids: string[] = [];
    for (let i = 0; i < 505; i++) {
      clock += 1;
      const r = await svc.request(plan, 'UALICE', { id: `open-${String(i).padStart(3, '0')}` });
      if (!r.ok) throw new Error(r.message);
      ids.push(r.request.id);
    }
    expect(await svc.listForSweep()).toEqual(ids);
    // Page by page along the cursors, as the sweep does; a continuation from the 250th entry's cursor gets the rest.
    const seen: { id: string; cursor: string }[] = [];
    let after: string | undefined;
    do {
      const page = await svc.sweepPage(after);
      seen.push(...page.entries);
      after = page.next;
    } while (after);
    expect(seen.map((e) => e.id)).toEqual(ids);
    const rest: string[] = [];
    after = seen[249]!.cursor;
    do {
      const page = await svc.sweepPage(after);
      rest.push(...page.entries.map((e) => e.id));
      after = page.next;
    } while (after);
    expect(rest).toEqual(ids.slice(250));
    await expect(svc.sweepPage('not-a-cursor')).rejects.toThrow(/malformed sweep cursor/);
  });

  it('putRunData/getRunData: a throttle ledger of over 1 MB of JSON round-trips, beside the request', async () => {
    const id = await executingId('w1');
    expect(await service.getRunData(id, 'throttles')).toBeNull();
    const ledger = {
      version: 1,
      entries: Array.from({ length: 12_000 }, (_, i) => ({
        kind: i % 3 === 0 ? 'broker' : 'topic',
        entity: i % 3 === 0 ? String(i % 12) : `orders-${i % 997}`,
        config: i % 3 === 0 ? 'leader.replication.throttled.rate' : 'leader.replication.throttled.replicas',
        value: i % 3 === 0 ? String(50_000_000 + i) : `${i}:${i % 12},${i}:${(i + 1) % 12}`,
        previous: i % 5 === 0 ? null : 'unset',
        setAt: 1_767_225_600_000 + i,
      })),
    };
    expect(JSON.stringify(ledger).length).toBeGreaterThan(1_000_000);
    await service.putRunData(id, 'throttles', ledger);
    expect(await service.getRunData(id, 'throttles')).toEqual(ledger);
    // Any later worker reads the same; another name or another request is separate.
    const later = new ApprovalService({ store: new ApprovalStore(dynamo.client, { tableName: 'approvals-test' }), policy });
    expect(await later.getRunData(id, 'throttles')).toEqual(ledger);
    expect(await service.getRunData(id, 'other')).toBeNull();
    expect(await service.getRunData(await executingId('w9'), 'throttles')).toBeNull();
    // It lives beside the request, not in it: the request item stays small.
    const request = (await store.get(id)) as ApprovalRequest & Record<string, unknown>;
    expect(JSON.stringify(request).length).toBeLessThan(10_000);
    // Overwritten as a whole.
    await service.putRunData(id, 'throttles', { version: 2, entries: [] });
    expect(await service.getRunData(id, 'throttles')).toEqual({ version: 2, entries: [] });
  });

  it('putRunData refuses what cannot be stored and keeps what was stored', async () => {
    const id = await executingId('w1');
    await service.putRunData(id, 'throttles', { version: 1 });
    // Random bytes do not compress: ~530 KB of base64 stays above what one item may hold.
    const big = { entries: [randomBytes(400_000).toString('base64')] };
    await expect(service.putRunData(id, 'throttles', big)).rejects.toThrow(/too large/);
    expect(await service.getRunData(id, 'throttles')).toEqual({ version: 1 });
  });
});
