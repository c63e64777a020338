import { describe, expect, it } from 'vitest';
import {
  ApprovalPolicyConfigSchema,
  createRequest,
  decide,
  resolvePolicy,
  type Action,
  type ApprovablePlan,
  type ApprovalPolicy,
  type ApprovalRequest,
  type Decision,
} from '../../lib/approvals/index.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const MIN = 60_000;
const plan: ApprovablePlan = { id: 'p1', kind: 'leader-override', title: 'make 3 lead orders-0', fingerprint: 'f'.repeat(64) };

// Approvers: ALICE, BOB, CAROL. REQUESTER_OUT is not an approver; MALLORY neither.
const ALICE = 'UALICE';
const BOB = 'UBOB';
const CAROL = 'UCAROL';
const REQUESTER_OUT = 'UOUTSIDER';
const MALLORY = 'UMALLORY';

function policy(required = 2, approvers = [ALICE, BOB, CAROL]): ApprovalPolicy {
  return resolvePolicy(ApprovalPolicyConfigSchema.parse({ approverUserIds: approvers, requiredApprovals: required }));
}

function newRequest(requester = ALICE, p = policy()): ApprovalRequest {
  const created = createRequest({ id: 'r1', plan, requester }, p, T0);
  if (!created.ok) throw new Error(created.refusal.message);
  return created.request;
}

function ok(d: Decision): ApprovalRequest {
  if (!d.ok) throw new Error(`refused: ${d.refusal.code} ${d.refusal.message}`);
  expect(d.request.version).toBe(d.event.seq);
  expect(d.request.events.at(-1)).toEqual(d.event);
  return d.request;
}

function refusal(d: Decision): string {
  if (d.ok) throw new Error(`expected a refusal, got ${d.request.status}`);
  return d.refusal.code;
}

/** Walk a request through actions at T0 + 1 min each, all expected to succeed. */
function run(request: ApprovalRequest, actions: Action[], p = policy()): ApprovalRequest {
  return actions.reduce((r, a, i) => ok(decide(r, a, p, T0 + (i + 1) * MIN)), request);
}

// Alice asks and, being an approver, is one of the two who click Approve on the posted plan.
const approvedByAliceBob = () =>
  run(newRequest(ALICE), [
    { type: 'approve', user: ALICE },
    { type: 'approve', user: BOB },
  ]);
const executing = () => run(approvedByAliceBob(), [{ type: 'claim', workerId: 'w1', leaseMs: 10 * MIN }]);

describe('policy', () => {
  it('never accepts fewer than two required approvals', () => {
    expect(ApprovalPolicyConfigSchema.safeParse({ approverUserIds: [ALICE], requiredApprovals: 1 }).success).toBe(false);
    expect(ApprovalPolicyConfigSchema.safeParse({ approverUserIds: [ALICE], requiredApprovals: 0 }).success).toBe(false);
  });
  it('defaults to two approvals and a 30-minute TTL', () => {
    const p = resolvePolicy(ApprovalPolicyConfigSchema.parse({ approverUserIds: [ALICE] }));
    expect(p.requiredApprovals).toBe(2);
    expect(p.ttlMs).toBe(30 * MIN);
  });
  it('requires some approvers and rejects malformed ids', () => {
    expect(ApprovalPolicyConfigSchema.safeParse({}).success).toBe(false);
    expect(ApprovalPolicyConfigSchema.safeParse({ approverUserIds: ['alice; rm -rf'] }).success).toBe(false);
    expect(ApprovalPolicyConfigSchema.safeParse({ approverUserGroup: 'S0123ABC' }).success).toBe(true);
  });
  it('adds resolved user-group members to the configured ids, ignoring junk', () => {
    const config = ApprovalPolicyConfigSchema.parse({ approverUserIds: [ALICE], approverUserGroup: 'SOPS' });
    const p = resolvePolicy(config, [BOB, 'not-a-user', ALICE]);
    expect([...p.approvers].sort()).toEqual([ALICE, BOB]);
  });
});

describe('createRequest', () => {
  it('asking is never approving: an authorized requester starts with no approval', () => {
    const r = newRequest(ALICE);
    expect(r.status).toBe('REQUESTED');
    expect(r.version).toBe(1);
    expect(r.approvals).toEqual([]);
    expect(r.expiresAt).toBe(T0 + 30 * MIN);
    expect(r.planDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(r.events).toHaveLength(1);
    expect(r.events[0]?.type).toBe('requested');
    expect(r.events[0]?.message).toMatch(/needs 2 approvals/);
    expect(r.events[0]?.message).not.toMatch(/counts as approval/);
  });
  it('does not count a requester who is not an approver', () => {
    expect(newRequest(REQUESTER_OUT).approvals).toEqual([]);
  });
  it('refuses when the policy can never be satisfied', () => {
    const d = createRequest({ id: 'r', plan, requester: ALICE }, policy(3, [ALICE, BOB]), T0);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.refusal.code).toBe('policy-unsatisfiable');
  });
});

describe('approve', () => {
  it('an authorized requester may be one of the two approvers, by clicking Approve like anyone else', () => {
    const own = run(newRequest(ALICE), [{ type: 'approve', user: ALICE }]);
    expect(own.status).toBe('REQUESTED');
    expect(own.events.at(-1)).toMatchObject({ type: 'approved', actor: ALICE, data: { count: 1, required: 2 } });
    const r = approvedByAliceBob();
    expect(r.status).toBe('APPROVED');
    expect(r.approvals.map((a) => [a.user, a.via])).toEqual([
      [ALICE, 'button'],
      [BOB, 'button'],
    ]);
  });
  it('an authorized requester plus one other approver is not enough: the request only counts clicks', () => {
    const r = run(newRequest(ALICE), [{ type: 'approve', user: BOB }]);
    expect(r.status).toBe('REQUESTED');
    expect(r.approvals.map((a) => a.user)).toEqual([BOB]);
    expect(refusal(decide(r, { type: 'claim', workerId: 'w1', leaseMs: MIN }, policy(), T0 + 2 * MIN))).toBe('not-approved');
  });
  it('requester outside the approvers → two other approvers are needed', () => {
    const one = run(newRequest(REQUESTER_OUT), [{ type: 'approve', user: ALICE }]);
    expect(one.status).toBe('REQUESTED');
    const two = run(one, [{ type: 'approve', user: BOB }]);
    expect(two.status).toBe('APPROVED');
  });
  it('honours a threshold above two', () => {
    const p = policy(3);
    const r = run(newRequest(ALICE, p), [{ type: 'approve', user: BOB }, { type: 'approve', user: CAROL }], p);
    expect(r.status).toBe('REQUESTED');
    expect(run(r, [{ type: 'approve', user: ALICE }], p).status).toBe('APPROVED');
  });
  it('a requester recorded as excluded (a plan their own run proposed) cannot approve, even as an approver: two others must', () => {
    const created = createRequest({ id: 'fu', plan, requester: ALICE, excludedApprovers: [ALICE] }, policy(), T0);
    if (!created.ok) throw new Error(created.refusal.message);
    expect(created.request.excludedApprovers).toEqual([ALICE]);
    const d = decide(created.request, { type: 'approve', user: ALICE }, policy(), T0 + MIN);
    expect(refusal(d)).toBe('self-approval');
    const r = run(created.request, [{ type: 'approve', user: BOB }]);
    expect(r.status).toBe('REQUESTED');
    expect(run(r, [{ type: 'approve', user: CAROL }]).status).toBe('APPROVED');
    // Fail closed: an excluded person's approval found in the record (written by older code, or by hand) never counts.
    const forged = { ...r, status: 'APPROVED' as const, approvals: [...r.approvals, { user: ALICE, at: T0, via: 'button' as const }] };
    expect(refusal(decide(forged, { type: 'claim', workerId: 'w1', leaseMs: MIN }, policy(), T0 + 2 * MIN))).toBe('quorum-lost');
  });
  it('refuses a request whose exclusions leave fewer approvers than it needs', () => {
    const d = createRequest({ id: 'fu', plan, requester: ALICE, excludedApprovers: [ALICE, BOB] }, policy(), T0);
    expect(d.ok ? 'created' : d.refusal.code).toBe('policy-unsatisfiable');
  });
  it('refuses self-approval by a requester who is not an approver', () => {
    const d = decide(newRequest(REQUESTER_OUT), { type: 'approve', user: REQUESTER_OUT }, policy(), T0 + MIN);
    expect(refusal(d)).toBe('self-approval');
    if (!d.ok) expect(d.refusal.message).toMatch(/own request/);
  });
  it('an approver-requester counts once: a second click of theirs is a duplicate', () => {
    const r = run(newRequest(ALICE), [{ type: 'approve', user: ALICE }]);
    expect(refusal(decide(r, { type: 'approve', user: ALICE }, policy(), T0 + 2 * MIN))).toBe('duplicate-approval');
  });
  it('refuses the same person twice (and says so for a retried click)', () => {
    const r = run(newRequest(REQUESTER_OUT), [{ type: 'approve', user: BOB, actionTs: '1700000000.000100' }]);
    const again = decide(r, { type: 'approve', user: BOB, actionTs: '1700000001.000100' }, policy(), T0 + 2 * MIN);
    expect(refusal(again)).toBe('duplicate-approval');
    const retried = decide(r, { type: 'approve', user: BOB, actionTs: '1700000000.000100' }, policy(), T0 + 2 * MIN);
    expect(refusal(retried)).toBe('duplicate-approval');
    if (!retried.ok) expect(retried.refusal.message).toMatch(/already recorded/);
  });
  it('refuses an unauthorized user', () => {
    expect(refusal(decide(newRequest(), { type: 'approve', user: MALLORY }, policy(), T0 + MIN))).toBe('unauthorized');
  });
  it('refuses further approvals once approved, and any after execution started or the request closed', () => {
    expect(refusal(decide(approvedByAliceBob(), { type: 'approve', user: CAROL }, policy(), T0 + 5 * MIN))).toBe(
      'already-approved',
    );
    expect(refusal(decide(executing(), { type: 'approve', user: CAROL }, policy(), T0 + 5 * MIN))).toBe('already-executed');
    const rejected = run(newRequest(), [{ type: 'reject', user: BOB }]);
    expect(refusal(decide(rejected, { type: 'approve', user: CAROL }, policy(), T0 + 5 * MIN))).toBe('closed');
  });
});

describe('expiry', () => {
  it('an approval after the TTL is refused and moves the request to EXPIRED', () => {
    const d = decide(newRequest(), { type: 'approve', user: BOB }, policy(), T0 + 30 * MIN);
    expect(refusal(d)).toBe('expired');
    if (!d.ok) {
      expect(d.transition?.request.status).toBe('EXPIRED');
      expect(d.transition?.event.type).toBe('expired');
      expect(d.transition?.request.version).toBe(2);
    }
  });
  it('an approved request that was never claimed expires too', () => {
    const d = decide(approvedByAliceBob(), { type: 'claim', workerId: 'w1', leaseMs: MIN }, policy(), T0 + 31 * MIN);
    expect(refusal(d)).toBe('expired');
  });
  it('the expire action works only when due', () => {
    expect(refusal(decide(newRequest(), { type: 'expire' }, policy(), T0 + 29 * MIN))).toBe('not-expired');
    expect(ok(decide(newRequest(), { type: 'expire' }, policy(), T0 + 31 * MIN)).status).toBe('EXPIRED');
  });
  it('a running execution does not expire', () => {
    const d = decide(executing(), { type: 'step', workerId: 'w1', leaseMs: MIN, step: { index: 0, name: 'x', status: 'ok' } }, policy(), T0 + 60 * MIN);
    expect(ok(d).status).toBe('EXECUTING');
  });
});

describe('reject and cancel', () => {
  it('a reject by an approver ends the request', () => {
    const r = run(newRequest(), [{ type: 'reject', user: CAROL, reason: 'wrong replica' }]);
    expect(r.status).toBe('REJECTED');
    expect(r.closedBy).toMatchObject({ user: CAROL, reason: 'wrong replica' });
  });
  it('a reject after full approval still ends it (before execution)', () => {
    expect(run(approvedByAliceBob(), [{ type: 'reject', user: CAROL }]).status).toBe('REJECTED');
  });
  it('refuses a reject from an unauthorized user or a non-approver requester', () => {
    expect(refusal(decide(newRequest(), { type: 'reject', user: MALLORY }, policy(), T0 + MIN))).toBe('unauthorized');
    const d = decide(newRequest(REQUESTER_OUT), { type: 'reject', user: REQUESTER_OUT }, policy(), T0 + MIN);
    expect(refusal(d)).toBe('unauthorized');
    if (!d.ok) expect(d.refusal.message).toMatch(/Cancel/);
  });
  it('the requester can cancel, before or after approval', () => {
    expect(run(newRequest(REQUESTER_OUT), [{ type: 'cancel', user: REQUESTER_OUT }]).status).toBe('CANCELLED');
    expect(run(approvedByAliceBob(), [{ type: 'cancel', user: ALICE }]).status).toBe('CANCELLED');
  });
  it('nobody else can cancel, and nobody can once execution started', () => {
    expect(refusal(decide(newRequest(ALICE), { type: 'cancel', user: BOB }, policy(), T0 + MIN))).toBe('not-requester');
    expect(refusal(decide(executing(), { type: 'cancel', user: ALICE }, policy(), T0 + 5 * MIN))).toBe('already-executed');
    expect(refusal(decide(executing(), { type: 'reject', user: CAROL }, policy(), T0 + 5 * MIN))).toBe('already-executed');
  });
});

describe('claim, steps, finish', () => {
  it('claim moves APPROVED to EXECUTING with a lease and a fresh run state', () => {
    const r = executing();
    expect(r.status).toBe('EXECUTING');
    expect(r.lease).toEqual({ owner: 'w1', claimedAt: T0 + MIN, until: T0 + 11 * MIN });
    expect(r.run).toEqual({ cursor: 0, checked: false, startedAt: T0 + MIN, stepStartedAt: T0 + MIN, invocations: 1 });
    expect(r.events.at(-1)).toMatchObject({ type: 'claimed', actor: 'w1', data: { leaseUntil: T0 + 11 * MIN } });
  });
  it('refuses to claim a request that is not approved', () => {
    expect(refusal(decide(newRequest(), { type: 'claim', workerId: 'w1', leaseMs: MIN }, policy(), T0 + MIN))).toBe(
      'not-approved',
    );
  });
  it('a second claim is refused while the lease lives, and never re-runs after it lapsed', () => {
    const r = executing();
    expect(refusal(decide(r, { type: 'claim', workerId: 'w2', leaseMs: MIN }, policy(), T0 + 5 * MIN))).toBe('already-claimed');
    expect(refusal(decide(r, { type: 'claim', workerId: 'w2', leaseMs: MIN }, policy(), T0 + 60 * MIN))).toBe('lease-expired');
    expect(refusal(decide(r, { type: 'claim', workerId: 'w1', leaseMs: MIN }, policy(), T0 + 60 * MIN))).toBe('lease-expired');
  });
  it('refuses to claim a plan that no longer matches its digest, inline plans too', () => {
    const approved = approvedByAliceBob();
    const claim = { type: 'claim', workerId: 'w1', leaseMs: MIN } as const;
    expect(decide(approved, claim, policy(), T0 + 5 * MIN).ok).toBe(true);
    const edited = { ...approved, plan: { ...approved.plan, title: 'make 1 lead orders-0' } };
    const d = decide(edited, claim, policy(), T0 + 5 * MIN);
    expect(refusal(d)).toBe('plan-altered');
    expect(d.ok ? '' : d.refusal.message).toMatch(/no longer matches the digest it was approved with; nothing runs/);
    // The same plan with its keys in another order (as DynamoDB may return them) still matches.
    const reordered = { ...approved, plan: Object.fromEntries(Object.entries(approved.plan).reverse()) as typeof approved.plan };
    expect(decide(reordered, claim, policy(), T0 + 5 * MIN).ok).toBe(true);
  });
  it('refuses to claim when an approver has since been removed from the policy', () => {
    const shrunk = policy(2, [ALICE, CAROL]);
    expect(refusal(decide(approvedByAliceBob(), { type: 'claim', workerId: 'w1', leaseMs: MIN }, shrunk, T0 + 5 * MIN))).toBe(
      'quorum-lost',
    );
  });
  it('the lease owner records steps, each an event that renews the lease', () => {
    const r = run(executing(), [{ type: 'step', workerId: 'w1', leaseMs: 10 * MIN, step: { index: 0, name: 'reassign', status: 'ok', detail: 'done' } }]);
    expect(r.status).toBe('EXECUTING');
    expect(r.lease?.until).toBe(T0 + 11 * MIN);
    expect(r.events.at(-1)).toMatchObject({ type: 'step', actor: 'w1', message: 'step 1 reassign: ok — done' });
  });
  it('a step stores the run state it is given, and keeps the stored one when given none', () => {
    const next = { cursor: 1, checked: true, startedAt: T0 + MIN, stepStartedAt: T0 + 2 * MIN, invocations: 1, data: { errors: 0 } };
    const step = { index: 0, name: 'reassign', status: 'ok' as const };
    const withRun = run(executing(), [{ type: 'step', workerId: 'w1', leaseMs: 10 * MIN, step, run: next }]);
    expect(withRun.run).toEqual(next);
    const without = run(withRun, [{ type: 'step', workerId: 'w1', leaseMs: 10 * MIN, step: { ...step, index: 1 } }]);
    expect(without.run).toEqual(next);
    const finished = run(without, [{ type: 'finish', workerId: 'w1', outcome: 'FAILED', summary: 'x', run: { ...next, cleanupPending: true } }]);
    expect(finished.run).toEqual({ ...next, cleanupPending: true });
  });
  it('only the lease owner may record steps or finish', () => {
    const r = executing();
    const step = { index: 0, name: 'x', status: 'ok' as const };
    expect(refusal(decide(r, { type: 'step', workerId: 'w2', leaseMs: MIN, step }, policy(), T0 + 5 * MIN))).toBe('not-lease-owner');
    expect(refusal(decide(r, { type: 'finish', workerId: 'w2', outcome: 'SUCCEEDED', summary: 'x' }, policy(), T0 + 5 * MIN))).toBe(
      'not-lease-owner',
    );
    expect(refusal(decide(approvedByAliceBob(), { type: 'step', workerId: 'w1', leaseMs: MIN, step }, policy(), T0 + 5 * MIN))).toBe(
      'not-executing',
    );
  });
  // A CANCELLED request is closed whether or not it ran: a claim hears 'closed', the run's own worker 'already-executed'.
  it.each([
    ['SUCCEEDED', 'succeeded', 'already-executed'],
    ['FAILED', 'failed', 'already-executed'],
    ['STALE', 'stale', 'already-executed'],
    ['CANCELLED', 'cancelled', 'closed'],
  ] as const)('finish → %s (event %s), then nothing more runs', (outcome, eventType, claimCode) => {
    const r = run(executing(), [{ type: 'finish', workerId: 'w1', outcome, summary: 'the end', data: { cursor: 0 } }]);
    expect(r.status).toBe(outcome);
    expect(r.outcome).toMatchObject({ status: outcome, summary: 'the end' });
    expect(r.events.at(-1)).toMatchObject({ type: eventType, actor: 'w1', message: 'the end', data: { cursor: 0 } });
    expect(refusal(decide(r, { type: 'claim', workerId: 'w2', leaseMs: MIN }, policy(), T0 + 9 * MIN))).toBe(claimCode);
    for (const again of [
      { type: 'finish', workerId: 'w1', outcome, summary: 'again' },
      { type: 'step', workerId: 'w1', leaseMs: MIN, step: { index: 0, name: 'x', status: 'ok' } },
      { type: 'resume', workerId: 'w1', leaseMs: MIN },
    ] as const) {
      expect(refusal(decide(r, again, policy(), T0 + 9 * MIN))).toBe('already-executed');
    }
    expect(refusal(decide(r, { type: 'request-cancel', user: CAROL }, policy(), T0 + 9 * MIN))).toBe(claimCode);
    expect(refusal(decide(r, { type: 'abandon', user: CAROL }, policy(), T0 + 60 * MIN))).toBe('not-executing');
  });
  it('a requester cancel before execution is not an executed run: the worker hears not-executing', () => {
    const r = run(approvedByAliceBob(), [{ type: 'cancel', user: ALICE }]);
    expect(r.outcome).toBeUndefined();
    expect(refusal(decide(r, { type: 'step', workerId: 'w1', leaseMs: MIN, step: { index: 0, name: 'x', status: 'ok' } }, policy(), T0 + 9 * MIN))).toBe(
      'not-executing',
    );
  });
});

describe('abandon (crashed worker)', () => {
  it('is refused while the lease lives', () => {
    expect(refusal(decide(executing(), { type: 'abandon', user: CAROL }, policy(), T0 + 5 * MIN))).toBe('lease-active');
  });
  it('turns an EXECUTING request with a lapsed lease into FAILED, still owing the cleanup of its run', () => {
    const r = ok(decide(executing(), { type: 'abandon', user: CAROL, reason: 'worker died' }, policy(), T0 + 60 * MIN));
    expect(r.status).toBe('FAILED');
    expect(r.events.at(-1)?.type).toBe('abandoned');
    expect(r.outcome).toMatchObject({ status: 'FAILED' });
    expect(r.run).toMatchObject({ cursor: 0, invocations: 1, cleanupPending: true });
  });
  it('a run-less request (claimed before runs were recorded) is abandoned without inventing one', () => {
    const { run: _run, ...legacy } = executing();
    const r = ok(decide(legacy, { type: 'abandon', user: CAROL }, policy(), T0 + 60 * MIN));
    expect(r.status).toBe('FAILED');
    expect(r.run).toBeUndefined();
  });
  it('needs an approver', () => {
    expect(refusal(decide(executing(), { type: 'abandon', user: MALLORY }, policy(), T0 + 60 * MIN))).toBe('unauthorized');
  });
});

describe('resume (a new worker takes over a run whose worker stopped reporting)', () => {
  // The service first moves the lease to the new worker (a conditional write without
  // a version bump), then audits the takeover with this action.
  const takenOverBy = (workerId: string, at: number) => {
    const r = run(executing(), [
      {
        type: 'step',
        workerId: 'w1',
        leaseMs: 10 * MIN,
        step: { index: 0, name: 'reassign', status: 'ok' },
        run: { cursor: 1, checked: true, startedAt: T0 + MIN, stepStartedAt: T0 + MIN, invocations: 1 },
      },
    ]);
    return { ...r, lease: { owner: workerId, claimedAt: at, until: at + 10 * MIN }, run: { ...r.run!, invocations: 2 } };
  };

  it('audits the takeover by the worker that now holds the lease and renews it, at the recorded step', () => {
    const before = takenOverBy('w2', T0 + 60 * MIN);
    const d = decide(before, { type: 'resume', workerId: 'w2', leaseMs: 5 * MIN }, policy(), T0 + 61 * MIN);
    const r = ok(d);
    expect(r.status).toBe('EXECUTING');
    expect(r.version).toBe(before.version + 1);
    expect(r.lease).toEqual({ owner: 'w2', claimedAt: T0 + 60 * MIN, until: T0 + 66 * MIN });
    expect(r.run).toEqual(before.run);
    expect(r.events.at(-1)).toMatchObject({ type: 'resumed', actor: 'w2' });
    expect(r.events.at(-1)?.message).toMatch(/at step 2/);
  });
  it('only the worker holding the lease may resume; the dead one cannot come back through it', () => {
    const before = takenOverBy('w2', T0 + 60 * MIN);
    expect(refusal(decide(before, { type: 'resume', workerId: 'w1', leaseMs: MIN }, policy(), T0 + 61 * MIN))).toBe('not-lease-owner');
    expect(refusal(decide(before, { type: 'step', workerId: 'w1', leaseMs: MIN, step: { index: 1, name: 'x', status: 'ok' } }, policy(), T0 + 61 * MIN))).toBe(
      'not-lease-owner',
    );
    expect(refusal(decide(before, { type: 'finish', workerId: 'w1', outcome: 'SUCCEEDED', summary: 'x' }, policy(), T0 + 61 * MIN))).toBe(
      'not-lease-owner',
    );
  });
  it('is refused on a request that is not running', () => {
    expect(refusal(decide(approvedByAliceBob(), { type: 'resume', workerId: 'w1', leaseMs: MIN }, policy(), T0 + 5 * MIN))).toBe('not-executing');
    expect(refusal(decide(newRequest(), { type: 'resume', workerId: 'w1', leaseMs: MIN }, policy(), T0 + 5 * MIN))).toBe('not-executing');
  });
  it('a run without recorded progress resumes without naming a step', () => {
    const { run: _run, ...legacy } = executing();
    const r = ok(decide(legacy, { type: 'resume', workerId: 'w1', leaseMs: MIN }, policy(), T0 + 60 * MIN));
    expect(r.events.at(-1)?.message).not.toMatch(/at step/);
  });
});

describe('request-cancel (stop a running operation)', () => {
  it('any one approver may ask, even one who did not approve it; the request keeps running until the worker stops', () => {
    const before = executing();
    const r = ok(decide(before, { type: 'request-cancel', user: CAROL, reason: 'wrong broker' }, policy(), T0 + 5 * MIN));
    expect(r.status).toBe('EXECUTING');
    expect(r.version).toBe(before.version + 1);
    expect(r.cancelRequested).toEqual({ user: CAROL, at: T0 + 5 * MIN, reason: 'wrong broker' });
    expect(r.lease).toEqual(before.lease);
    expect(r.run).toEqual(before.run);
    expect(r.events.at(-1)).toMatchObject({ type: 'cancel-requested', actor: CAROL });
    expect(r.events.at(-1)?.message).toMatch(/wrong broker/);
  });
  it('needs no reason', () => {
    const r = ok(decide(executing(), { type: 'request-cancel', user: BOB }, policy(), T0 + 5 * MIN));
    expect(r.cancelRequested).toEqual({ user: BOB, at: T0 + 5 * MIN });
  });
  it('a second request is refused, from the same or another approver', () => {
    const r = ok(decide(executing(), { type: 'request-cancel', user: CAROL }, policy(), T0 + 5 * MIN));
    for (const user of [CAROL, ALICE]) {
      const d = decide(r, { type: 'request-cancel', user }, policy(), T0 + 6 * MIN);
      expect(refusal(d)).toBe('duplicate-approval');
      if (!d.ok) expect(d.refusal.message).toContain(CAROL);
    }
  });
  it('is refused for anyone who is not an approver, the requester included', () => {
    const byOutsider = run(newRequest(REQUESTER_OUT), [
      { type: 'approve', user: ALICE },
      { type: 'approve', user: BOB },
      { type: 'claim', workerId: 'w1', leaseMs: 10 * MIN },
    ]);
    expect(refusal(decide(byOutsider, { type: 'request-cancel', user: MALLORY }, policy(), T0 + 5 * MIN))).toBe('unauthorized');
    expect(refusal(decide(byOutsider, { type: 'request-cancel', user: REQUESTER_OUT }, policy(), T0 + 5 * MIN))).toBe('unauthorized');
  });
  it('is refused before execution (Reject or Cancel apply then) and after it ended', () => {
    expect(refusal(decide(newRequest(), { type: 'request-cancel', user: CAROL }, policy(), T0 + MIN))).toBe('not-executing');
    expect(refusal(decide(approvedByAliceBob(), { type: 'request-cancel', user: CAROL }, policy(), T0 + 5 * MIN))).toBe('not-executing');
    const done = run(executing(), [{ type: 'finish', workerId: 'w1', outcome: 'SUCCEEDED', summary: 'ok' }]);
    expect(refusal(decide(done, { type: 'request-cancel', user: CAROL }, policy(), T0 + 5 * MIN))).toBe('already-executed');
    const rejected = run(newRequest(), [{ type: 'reject', user: BOB }]);
    expect(refusal(decide(rejected, { type: 'request-cancel', user: CAROL }, policy(), T0 + 5 * MIN))).toBe('closed');
  });
  it('an open request past its deadline expires instead', () => {
    const d = decide(approvedByAliceBob(), { type: 'request-cancel', user: CAROL }, policy(), T0 + 31 * MIN);
    expect(refusal(d)).toBe('expired');
    if (!d.ok) expect(d.transition?.request.status).toBe('EXPIRED');
  });
  it('works on a long run past the approval deadline', () => {
    expect(ok(decide(executing(), { type: 'request-cancel', user: CAROL }, policy(), T0 + 6 * 60 * MIN)).cancelRequested?.user).toBe(CAROL);
  });
  it('the worker keeps its lease, records steps and finishes CANCELLED; the request remembers who asked', () => {
    const r = run(executing(), [
      { type: 'request-cancel', user: CAROL, reason: 'stop' },
      { type: 'step', workerId: 'w1', leaseMs: 10 * MIN, step: { index: 0, name: 'cancel reassignment', status: 'ok' } },
      { type: 'finish', workerId: 'w1', outcome: 'CANCELLED', summary: 'cancelled by <@UCAROL> at step 1 of 2' },
    ]);
    expect(r.status).toBe('CANCELLED');
    expect(r.cancelRequested).toMatchObject({ user: CAROL, reason: 'stop' });
    expect(r.outcome).toMatchObject({ status: 'CANCELLED' });
    expect(r.events.slice(-3).map((e) => e.type)).toEqual(['cancel-requested', 'step', 'cancelled']);
  });
});

describe('audit trail', () => {
  it('every transition appends exactly one event whose seq is the new version', () => {
    const r = run(newRequest(REQUESTER_OUT), [
      { type: 'approve', user: ALICE },
      { type: 'approve', user: BOB },
      { type: 'claim', workerId: 'w1', leaseMs: 10 * MIN },
      { type: 'step', workerId: 'w1', leaseMs: 10 * MIN, step: { index: 0, name: 's', status: 'ok' } },
      { type: 'finish', workerId: 'w1', outcome: 'SUCCEEDED', summary: 'ok' },
    ]);
    expect(r.events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'requested'],
      [2, 'approved'],
      [3, 'approved'],
      [4, 'claimed'],
      [5, 'step'],
      [6, 'succeeded'],
    ]);
    expect(r.version).toBe(6);
  });
  it('keeps oversized step data bounded', () => {
    const big = { output: 'x'.repeat(50_000) };
    const r = run(executing(), [{ type: 'step', workerId: 'w1', leaseMs: MIN, step: { index: 0, name: 's', status: 'ok', data: big } }]);
    expect(JSON.stringify(r.events.at(-1)).length).toBeLessThan(6_000);
  });
});

describe('request-resume (a paused run checks again)', () => {
  it('any one approver resumes a running operation; audited, the run and lease untouched', () => {
    const before = executing();
    const r = ok(decide(before, { type: 'request-resume', user: CAROL }, policy(), T0 + 5 * MIN));
    expect(r.status).toBe('EXECUTING');
    expect(r.resumeRequested).toEqual({ user: CAROL, at: T0 + 5 * MIN });
    expect(r.lease).toEqual(before.lease);
    expect(r.run).toEqual(before.run);
    expect(r.events.at(-1)).toMatchObject({ type: 'resume-requested', actor: CAROL });
  });
  it('is refused for a non-approver, before execution, and after a cancel was asked', () => {
    expect(refusal(decide(executing(), { type: 'request-resume', user: MALLORY }, policy(), T0 + 5 * MIN))).toBe('unauthorized');
    expect(refusal(decide(approvedByAliceBob(), { type: 'request-resume', user: CAROL }, policy(), T0 + 5 * MIN))).toBe('not-executing');
    const cancelling = ok(decide(executing(), { type: 'request-cancel', user: BOB }, policy(), T0 + 5 * MIN));
    expect(refusal(decide(cancelling, { type: 'request-resume', user: CAROL }, policy(), T0 + 6 * MIN))).toBe('closed');
  });
});
