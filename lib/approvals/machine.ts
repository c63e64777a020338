// The approval state machine as pure functions: no clock, no I/O. The store
// applies a decision with one conditional write; a lost race re-reads and
// decides again, so every rule here holds under concurrency too.
//
//   REQUESTED ─approve×N→ APPROVED ─claim→ EXECUTING ─finish→ SUCCEEDED | FAILED | STALE | CANCELLED
//   REQUESTED|APPROVED ─reject→ REJECTED, ─cancel→ CANCELLED, ─(ttl)→ EXPIRED
//   EXECUTING ─step / resume (new worker after a lease ran out) / request-cancel→ EXECUTING
//   EXECUTING (lease expired, worker gone) ─abandon by a human→ FAILED
// Asking is never approving: N distinct approvers click Approve on the posted
// plan; the requester may be one of them when they are an approver, unless
// the request excludes them (a plan their own run proposed).

import { digestOf } from './fingerprint.ts';
import type { ApprovalPolicy } from './policy.ts';
import { approvalsRequired } from './policy.ts';
import type {
  Action,
  ApprovablePlan,
  ApprovalRequest,
  ApprovalStatus,
  AuditEvent,
  AuditEventType,
  Decision,
  Refusal,
  RefusalCode,
} from './types.ts';
import { OPEN_STATUSES } from './types.ts';
import { clip, makeEvent } from './events.ts';

export { createRequest, type NewRequestInput } from './new-request.ts';

export function decide<P extends ApprovablePlan>(
  request: ApprovalRequest<P>,
  action: Action,
  policy: ApprovalPolicy,
  now: number,
): Decision<P> {
  // Expiry first: an open request past its deadline accepts nothing but becoming EXPIRED.
  if (OPEN_STATUSES.has(request.status) && now >= request.expiresAt) {
    const expired = transition(request, 'EXPIRED', now, 'expired', actorOf(action), 'expired before it was executed', {
      approvals: request.approvals.length,
      required: request.requiredApprovals,
    });
    if (action.type === 'expire') return { ok: true, ...expired };
    return { ok: false, refusal: refusal('expired', `request ${request.id} expired unexecuted`), transition: expired };
  }

  switch (action.type) {
    case 'expire':
      return refuse('not-expired', `request ${request.id} is ${request.status}, not expired`);
    case 'approve':
      return approve(request, action, policy, now);
    case 'reject':
    case 'cancel':
      return closeOpen(request, action, policy, now);
    case 'claim':
      return claim(request, action, policy, now);
    case 'step':
    case 'finish':
    case 'resume':
      return decideRun(request, action, now);
    case 'request-cancel':
    case 'request-resume':
    case 'abandon':
      return decideHuman(request, action, policy, now);
  }
}

/** An approver's click: counted once per person, APPROVED at the quorum. */
function approve<P extends ApprovablePlan>(request: ApprovalRequest<P>, action: Extract<Action, { type: 'approve' }>, policy: ApprovalPolicy, now: number): Decision<P> {
  if (!OPEN_STATUSES.has(request.status)) return notOpen(request);
  const { user } = action;
  // Recorded at creation (a plan proposed by someone's own run): they asked for it, two others decide.
  if (request.excludedApprovers?.includes(user)) {
    return refuse('self-approval', `you cannot approve this plan: it follows up an operation you asked for, so ${request.requiredApprovals} others must approve it`);
  }
  if (!policy.approvers.has(user)) {
    return refuse(
      user === request.requester ? 'self-approval' : 'unauthorized',
      user === request.requester ? 'you cannot approve your own request: you are not an authorized approver' : `<@${user}> is not an authorized approver`,
    );
  }
  const previous = request.approvals.find((a) => a.user === user);
  if (previous) {
    return refuse(
      'duplicate-approval',
      previous.actionTs !== undefined && previous.actionTs === action.actionTs
        ? 'this click was already recorded'
        : 'you already approved; nobody counts twice',
    );
  }
  if (request.status === 'APPROVED') return refuse('already-approved', 'already has the approvals it needs');
  const approvals = [
    ...request.approvals,
    { user, at: now, via: 'button' as const, ...(action.actionTs ? { actionTs: action.actionTs } : {}) },
  ];
  const count = validApprovals(request, policy).length + 1;
  const required = Math.max(request.requiredApprovals, approvalsRequired(policy));
  const next: ApprovalStatus = count >= required ? 'APPROVED' : 'REQUESTED';
  const message =
    next === 'APPROVED'
      ? `approved (${count} of ${required}): ready to execute`
      : `approved (${count} of ${required})`;
  return { ok: true, ...transition({ ...request, approvals }, next, now, 'approved', user, message, { count, required }) };
}

/** An open request closed by a person: rejected by an approver, or cancelled by its requester. */
function closeOpen<P extends ApprovablePlan>(request: ApprovalRequest<P>, action: Extract<Action, { type: 'reject' | 'cancel' }>, policy: ApprovalPolicy, now: number): Decision<P> {
  switch (action.type) {
    case 'reject': {
      if (!OPEN_STATUSES.has(request.status)) return notOpen(request);
      if (!policy.approvers.has(action.user)) {
        return refuse(
          'unauthorized',
          action.user === request.requester
            ? 'only an authorized approver can reject; use Cancel to withdraw your request'
            : `<@${action.user}> is not an authorized approver`,
        );
      }
      return {
        ok: true,
        ...transition(
          { ...request, closedBy: closedBy(action.user, now, action.reason) },
          'REJECTED',
          now,
          'rejected',
          action.user,
          `rejected${action.reason ? `: ${clip(action.reason)}` : ''}`,
        ),
      };
    }
    case 'cancel': {
      if (!OPEN_STATUSES.has(request.status)) return notOpen(request);
      if (action.user !== request.requester) return refuse('not-requester', 'only the requester can cancel');
      return {
        ok: true,
        ...transition(
          { ...request, closedBy: closedBy(action.user, now, action.reason) },
          'CANCELLED',
          now,
          'cancelled',
          action.user,
          `cancelled by the requester${action.reason ? `: ${clip(action.reason)}` : ''}`,
        ),
      };
    }
  }
}

/** A worker starting an APPROVED plan: only the plan approved, only with the quorum still there. */
function claim<P extends ApprovablePlan>(request: ApprovalRequest<P>, action: Extract<Action, { type: 'claim' }>, policy: ApprovalPolicy, now: number): Decision<P> {
  if (request.status === 'REQUESTED') {
    return refuse('not-approved', `has ${request.approvals.length} of ${request.requiredApprovals} approvals`);
  }
  if (request.status === 'EXECUTING') {
    const lease = request.lease;
    return lease && lease.until > now
      ? refuse('already-claimed', `already running on ${lease.owner}`)
      : refuse(
          'lease-expired',
          `a run by ${lease?.owner ?? 'an unknown worker'} stopped reporting; it is never re-run automatically: check the cluster, then abandon it`,
        );
  }
  if (request.status !== 'APPROVED') return notOpen(request);
  // What runs must be what was approved, however it was stored (inline or in chunks):
  // a plan edited in the table after the approvals never starts.
  if (digestOf(request.plan) !== request.planDigest) {
    return refuse('plan-altered', 'the stored plan no longer matches the digest it was approved with; nothing runs: request a new plan');
  }
  // Re-check the quorum against today's approvers: someone removed since does not count.
  const count = validApprovals(request, policy).length;
  const required = Math.max(request.requiredApprovals, approvalsRequired(policy));
  if (count < required) {
    return refuse('quorum-lost', `only ${count} of ${required} approvals are from current approvers who may approve it`);
  }
  const lease = { owner: action.workerId, claimedAt: now, until: now + action.leaseMs };
  const run = { cursor: 0, checked: false, startedAt: now, stepStartedAt: now, invocations: 1 };
  return {
    ok: true,
    ...transition({ ...request, lease, run }, 'EXECUTING', now, 'claimed', action.workerId, 'execution started', {
      leaseUntil: lease.until,
    }),
  };
}

/** The worker holding the lease: a step, the end, or taking over after a lease ran out. */
function decideRun<P extends ApprovablePlan>(request: ApprovalRequest<P>, action: Extract<Action, { type: 'step' | 'finish' | 'resume' }>, now: number): Decision<P> {
  switch (action.type) {
    case 'step': {
      const owned = ownLease(request, action.workerId);
      if (owned) return owned;
      const lease = { ...request.lease!, until: now + action.leaseMs };
      const { step } = action;
      return {
        ok: true,
        ...transition(
          { ...request, lease, ...(action.run ? { run: action.run } : {}) },
          'EXECUTING',
          now,
          'step',
          action.workerId,
          `step ${step.index + 1} ${step.name}: ${step.status}${step.detail ? ` — ${clip(step.detail)}` : ''}`,
          { index: step.index, name: step.name, status: step.status, ...(step.startedAt !== undefined ? { startedAt: step.startedAt } : {}), ...(step.phase ? { phase: step.phase } : {}), ...(step.data ? { data: step.data } : {}) },
        ),
      };
    }
    case 'finish': {
      const owned = ownLease(request, action.workerId);
      if (owned) return owned;
      const type = FINISH_EVENT[action.outcome];
      return {
        ok: true,
        ...transition(
          { ...request, outcome: { status: action.outcome, summary: clip(action.summary), at: now }, ...(action.run ? { run: action.run } : {}) },
          action.outcome,
          now,
          type,
          action.workerId,
          clip(action.summary),
          action.data,
        ),
      };
    }
    case 'resume': {
      const owned = ownLease(request, action.workerId);
      if (owned) return owned;
      const lease = { ...request.lease!, until: now + action.leaseMs };
      const at = request.run ? ` at step ${request.run.cursor + 1}` : '';
      return {
        ok: true,
        ...transition({ ...request, lease }, 'EXECUTING', now, 'resumed', action.workerId, `resumed${at}: the previous worker stopped reporting`),
      };
    }
  }
}

/** People acting on a running operation: ask it to cancel, resume it from a pause, or abandon it when its worker is gone. */
function decideHuman<P extends ApprovablePlan>(request: ApprovalRequest<P>, action: Extract<Action, { type: 'request-cancel' | 'request-resume' | 'abandon' }>, policy: ApprovalPolicy, now: number): Decision<P> {
  switch (action.type) {
    case 'request-cancel': {
      if (request.status !== 'EXECUTING') {
        return OPEN_STATUSES.has(request.status)
          ? refuse('not-executing', 'not running yet: use Reject (approvers) or Cancel (requester)')
          : notOpen(request);
      }
      if (!policy.approvers.has(action.user)) return refuse('unauthorized', `<@${action.user}> is not an authorized approver`);
      if (request.cancelRequested) return refuse('duplicate-approval', `<@${request.cancelRequested.user}> already asked to cancel it`);
      const cancelRequested = { user: action.user, at: now, ...(action.reason ? { reason: clip(action.reason) } : {}) };
      return {
        ok: true,
        ...transition(
          { ...request, cancelRequested },
          'EXECUTING',
          now,
          'cancel-requested',
          action.user,
          `asked to cancel the running operation${action.reason ? `: ${clip(action.reason)}` : ''}`,
        ),
      };
    }
    case 'request-resume': {
      if (request.status !== 'EXECUTING') return OPEN_STATUSES.has(request.status) ? refuse('not-executing', 'not running yet') : notOpen(request);
      if (!policy.approvers.has(action.user)) return refuse('unauthorized', `<@${action.user}> is not an authorized approver`);
      if (request.cancelRequested) return refuse('closed', `<@${request.cancelRequested.user}> already asked to cancel it`);
      return { ok: true, ...transition({ ...request, resumeRequested: { user: action.user, at: now } }, 'EXECUTING', now, 'resume-requested', action.user, 'resumed the paused operation: it checks again') };
    }
    case 'abandon': {
      if (request.status !== 'EXECUTING') return refuse('not-executing', `request is ${request.status}`);
      if (!policy.approvers.has(action.user)) return refuse('unauthorized', `<@${action.user}> is not an authorized approver`);
      if (request.lease && request.lease.until > now) {
        return refuse('lease-active', `${request.lease.owner} is still running it (lease until ${new Date(request.lease.until).toISOString()})`);
      }
      const summary = `abandoned after the worker stopped reporting${action.reason ? `: ${clip(action.reason)}` : ''}`;
      return {
        ok: true,
        ...transition(
          {
            ...request,
            closedBy: closedBy(action.user, now, action.reason),
            outcome: { status: 'FAILED', summary, at: now },
            // Whatever the dead worker left set (throttles) is still owed: the sweep removes it.
            ...(request.run ? { run: { ...request.run, cleanupPending: true } } : {}),
          },
          'FAILED',
          now,
          'abandoned',
          action.user,
          summary,
        ),
      };
    }
  }
}

const FINISH_EVENT = { SUCCEEDED: 'succeeded', FAILED: 'failed', STALE: 'stale', CANCELLED: 'cancelled' } as const;

/**
 * Approvals that count: from people who are approvers under the current
 * policy and not excluded from this request. An excluded person's approval
 * found in the record (never written by this machine) counts for nothing.
 */
export function validApprovals(request: Pick<ApprovalRequest, 'approvals' | 'excludedApprovers'>, policy: ApprovalPolicy) {
  const excluded = new Set(request.excludedApprovers ?? []);
  return request.approvals.filter((a) => policy.approvers.has(a.user) && !excluded.has(a.user));
}

export function isExpired(request: ApprovalRequest, now: number): boolean {
  return OPEN_STATUSES.has(request.status) && now >= request.expiresAt;
}

function ownLease<P extends ApprovablePlan>(request: ApprovalRequest<P>, workerId: string): Decision<P> | null {
  if (request.status !== 'EXECUTING') {
    return request.status === 'SUCCEEDED' || request.status === 'FAILED' || request.status === 'STALE' || (request.status === 'CANCELLED' && request.outcome)
      ? refuse('already-executed', `request is already ${request.status}`)
      : refuse('not-executing', `request is ${request.status}`);
  }
  if (request.lease?.owner !== workerId) {
    return refuse('not-lease-owner', `running on ${request.lease?.owner ?? 'nobody'}, not ${workerId}`);
  }
  return null;
}

function notOpen<P extends ApprovablePlan>(request: ApprovalRequest<P>): Decision<P> {
  switch (request.status) {
    case 'EXECUTING':
    case 'SUCCEEDED':
    case 'FAILED':
    case 'STALE':
      return refuse('already-executed', `request is already ${request.status}`);
    default:
      return refuse('closed', `request is ${request.status}`);
  }
}

function transition<P extends ApprovablePlan>(
  request: ApprovalRequest<P>,
  status: ApprovalStatus,
  now: number,
  type: AuditEventType,
  actor: string,
  message: string,
  data?: Record<string, unknown>,
): { request: ApprovalRequest<P>; event: AuditEvent } {
  const version = request.version + 1;
  const event = makeEvent(request, version, now, type, actor, message, data);
  return { request: { ...request, status, version, events: [...request.events, event] }, event };
}

function actorOf(action: Action): string {
  if ('user' in action) return action.user;
  if ('workerId' in action) return action.workerId;
  return 'system';
}

function closedBy(user: string, at: number, reason?: string) {
  return reason ? { user, at, reason: clip(reason) } : { user, at };
}

function refusal(code: RefusalCode, message: string): Refusal {
  return { code, message };
}

function refuse(code: RefusalCode, message: string): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: refusal(code, message) };
}
