// ApprovalService + ApprovalStore against dynalite: every race here is decided
// by real DynamoDB conditional writes over HTTP.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApprovalPolicyConfigSchema,
  ApprovalService,
  ApprovalStore,
  resolvePolicy,
  type ApprovablePlan,
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

async function approvedId(): Promise<string> {
  const id = await newRequestId('UALICE');
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
    const trail = await store.auditTrail(id);
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
    const trail = await store.auditTrail(id);
    expect(trail.map((e) => e.type)).toEqual(['requested', 'approved', 'approved', 'claimed', 'succeeded']);
    expect((await store.refusals(id)).length).toBe(50 - 2 + 49); // 48 refused clicks + 49 refused claims
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
    expect((await store.auditTrail(id)).map((e) => e.type)).toEqual(['requested', 'expired']);
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

  it('refuses a duplicate request id and a plan too large to store', async () => {
    const id = randomUUID();
    expect((await service.request(plan, 'UALICE', { id })).ok).toBe(true);
    expect(await service.request(plan, 'UALICE', { id })).toMatchObject({ ok: false, code: 'invalid-input' });
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
    const approved = await service.approve(id, 'UBOB');
    expect(approved.ok && approved.readyToExecute).toBe(true);
    const claimed = await service.claimForExecution(id, 'w1');
    expect(claimed.ok && claimed.request.plan).toEqual(big);
    expect((await service.get(id))?.plan).toEqual(big);
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
