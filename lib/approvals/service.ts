// The facade the Slack layer and the worker call. Each call: validate input,
// read the request (consistent read), decide with the pure state machine,
// write with one conditional UpdateItem; if another writer won the race, read
// again and re-decide. Results are plain data the Slack layer can render.

import { randomUUID } from 'node:crypto';
import { decide } from './machine.ts';
import { createRequest, sameRequest } from './new-request.ts';
import type { ApprovalPolicy } from './policy.ts';
import { ActionTs, LockKey, Reason, RequestId, UserId, UserIds, WorkerId, invalid, refused, type InputRefusal, type ServiceResult } from './inputs.ts';
import type { ApprovalStore } from './store.ts';
import type { ClusterLockStore } from './cluster-lock.ts';
import type { RateLimitStore, RateWindow } from './rate-limit.ts';
import type {
  Action,
  ApprovablePlan,
  ApprovalRequest,
  AuditEvent,
  FinalOutcome,
  Lease,
  RunState,
  StepReport,
} from './types.ts';

export const DEFAULT_LEASE_MS = 10 * 60_000;
/** Large plans are stored gzipped in chunks (see ApprovalStore); beyond this, split the operation. */
export const MAX_PLAN_JSON_CHARS = 32_000_000;
export type { ServiceResult } from './inputs.ts';

export type PlanAdmission = { ok: true } | { ok: false; scope: 'user' | 'cluster'; limit: RateWindow; retryAfterSeconds: number };

export type ClusterLockResult = { ok: true } | { ok: false; heldBy: string | null; since: number | null; message: string };

export interface ApprovalServiceOptions {
  store: ApprovalStore;
  /** The policy, or a function resolving it (user-group members change). */
  policy: ApprovalPolicy | (() => Promise<ApprovalPolicy>);
  now?: () => number;
  leaseMs?: number;
  /** Re-decide attempts after losing a race. Each lost race means someone else progressed. */
  maxAttempts?: number;
}

export class ApprovalService<P extends ApprovablePlan = ApprovablePlan> {
  private readonly store: ApprovalStore;
  private readonly locks: ClusterLockStore;
  private readonly rates: RateLimitStore;
  /** The clock decisions are made by (injected in tests); callers judging time against requests use it too. */
  readonly now: () => number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;

  constructor(private readonly options: ApprovalServiceOptions) {
    this.store = options.store;
    this.locks = options.store.locks();
    this.rates = options.store.rateLimits();
    this.now = options.now ?? Date.now;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.maxAttempts = options.maxAttempts ?? 25;
  }

  /**
   * Records a new request for approval. Safe to repeat with the same id (SQS
   * retries a plan job with it): the same request asked again, whatever its
   * first try managed to write, is completed and answered as created; a
   * different request under a taken id is refused.
   *
   * A plan a run proposed (`context.proposedBy`, set by the plan job for a
   * follow-up) is recorded with the proposing run's requester excluded from
   * approving it, and whoever that run excluded: they asked for the work,
   * two others decide. The proposing run must be found (fail closed).
   */
  async request(
    plan: P,
    requester: string,
    options: { id?: string; context?: Record<string, string>; excludedApprovers?: readonly string[] } = {},
  ): Promise<ServiceResult<P>> {
    const proposedBy = options.context?.proposedBy;
    const bad =
      invalid(UserId, requester) ??
      (options.id !== undefined ? invalid(RequestId, options.id) : null) ??
      (proposedBy !== undefined ? invalid(RequestId, proposedBy) : null) ??
      invalid(UserIds, options.excludedApprovers);
    if (bad) return bad;
    if (JSON.stringify(plan).length > MAX_PLAN_JSON_CHARS) {
      return refused('plan-too-large', `the plan is too large to store for approval; split it`, null);
    }
    const excludedApprovers = [...(options.excludedApprovers ?? [])];
    if (proposedBy !== undefined) {
      const parent = await this.store.get(proposedBy);
      if (!parent) return refused('invalid-input', `the operation that proposed this plan (request ${proposedBy}) is not on record; nothing was requested`, null);
      excludedApprovers.push(requester, parent.requester, ...(parent.excludedApprovers ?? []));
    }
    const policy = await this.policy();
    const id = options.id ?? randomUUID();
    const created = createRequest(
      { id, plan, requester, ...(options.context ? { context: options.context } : {}), ...(excludedApprovers.length ? { excludedApprovers } : {}) },
      policy,
      this.now(),
    );
    if (!created.ok) return refused(created.refusal.code, created.refusal.message, null);
    // A retry usually finds its request (or nothing) here; the conditional write below settles a race.
    const earlier = await this.store.get<P>(id);
    if (earlier) return this.askedAgain(earlier, created.request);
    const stored = await this.store.create(created.request, created.event);
    if (stored === 'too-large') return refused('plan-too-large', 'the plan is too large to store for approval; split it', null);
    if (stored === 'exists') {
      const winner = await this.store.get<P>(id);
      if (!winner) return refused('contention', `request ${id} is being written by another attempt; try again`, null);
      return this.askedAgain(winner, created.request);
    }
    return { ok: true, request: created.request, event: created.event, message: line(created.event), readyToExecute: false };
  }

  /** The id is taken: by this same request (a retried job: finish what it wrote, answer with it), or by another. */
  private async askedAgain(stored: ApprovalRequest<P>, incoming: ApprovalRequest<P>): Promise<ServiceResult<P>> {
    if (!sameRequest(stored, incoming)) {
      return refused('invalid-input', `a different request already has id ${stored.id}`, stored);
    }
    const event = stored.events[0]!;
    // The first try may have died before its audit record (the request item holds the event).
    await this.store.audit.put(event);
    return { ok: true, request: stored, event, message: line(event), readyToExecute: false };
  }

  approve(id: string, user: string, actionTs?: string) {
    return this.apply(id, { type: 'approve', user, ...(actionTs ? { actionTs } : {}) }, invalid(UserId, user) ?? invalid(ActionTs, actionTs));
  }

  reject(id: string, user: string, reason?: string) {
    return this.apply(id, { type: 'reject', user, ...(reason ? { reason } : {}) }, invalid(UserId, user) ?? invalid(Reason, reason));
  }

  cancel(id: string, user: string, reason?: string) {
    return this.apply(id, { type: 'cancel', user, ...(reason ? { reason } : {}) }, invalid(UserId, user) ?? invalid(Reason, reason));
  }

  /** Moves an open request past its deadline to EXPIRED (e.g. from a scheduled sweep). */
  expire(id: string) {
    return this.apply(id, { type: 'expire' }, null);
  }

  /** Exactly one caller wins: APPROVED → EXECUTING with a lease owned by `workerId`. */
  claimForExecution(id: string, workerId: string, leaseMs = this.leaseMs) {
    return this.apply(id, { type: 'claim', workerId, leaseMs }, invalid(WorkerId, workerId));
  }

  /**
   * Starts or continues an execution on this worker: claims an APPROVED request,
   * or takes over a running one whose lease is parked (waiting between
   * invocations) or ran out (its worker died; audited as "resumed"). Exactly one
   * caller wins; the others get `already-claimed` and must do nothing.
   */
  async acquireExecution(id: string, workerId: string, leaseMs = this.leaseMs): Promise<ServiceResult<P> & { resumedAfterDeath?: boolean }> {
    const bad = invalid(RequestId, id) ?? invalid(WorkerId, workerId);
    if (bad) return bad;
    const current = await this.store.get<P>(id);
    if (!current) return refused('not-found', `no approval request ${id}`, null);
    if (current.status !== 'EXECUTING') return this.claimForExecution(id, workerId, leaseMs);
    const now = this.now();
    const lease = current.lease;
    if (lease && lease.owner !== workerId && !lease.parked && lease.until > now) {
      return refused('already-claimed', `already running on ${lease.owner}`, current);
    }
    const run = current.run ?? { cursor: 0, checked: false, startedAt: now, stepStartedAt: now, invocations: 0 };
    const next = { owner: workerId, claimedAt: now, until: now + leaseMs };
    const expected = lease ?? { owner: '', claimedAt: 0, until: 0 };
    const taken = await this.store.takeLease(id, expected, next, { ...run, invocations: run.invocations + 1 });
    if (!taken) return refused('already-claimed', 'another worker took this run over first', await this.store.get<P>(id));
    const diedBefore = !lease?.parked && lease?.owner !== workerId;
    if (!diedBefore) {
      const request = (await this.store.get<P>(id))!;
      return { ok: true, request, event: request.events.at(-1)!, message: 'continuing', readyToExecute: false };
    }
    const resumed = await this.apply(id, { type: 'resume', workerId, leaseMs }, null);
    return resumed.ok ? { ...resumed, resumedAfterDeath: true } : resumed;
  }

  /** Audits one executed step (and renews the lease, saves the run state) before the executor moves on. */
  recordStep(id: string, workerId: string, step: StepReport, run?: RunState, leaseMs = this.leaseMs) {
    return this.apply(id, { type: 'step', workerId, leaseMs, step, ...(run ? { run } : {}) }, invalid(WorkerId, workerId));
  }

  /** Progress and lease of a running request, kept by its owner between audited steps (no version bump). */
  saveRun(id: string, workerId: string, run: RunState, lease: Lease): Promise<boolean> {
    if (invalid(RequestId, id) || invalid(WorkerId, workerId) || lease.owner !== workerId) return Promise.resolve(false);
    return this.store.saveRun(id, workerId, run, lease);
  }

  finish(id: string, workerId: string, outcome: FinalOutcome, summary: string, data?: Record<string, unknown>, run?: RunState) {
    return this.apply(
      id,
      { type: 'finish', workerId, outcome, summary, ...(data ? { data } : {}), ...(run ? { run } : {}) },
      invalid(WorkerId, workerId),
    );
  }

  /**
   * Counts a plan request against the requester's and the cluster's limits
   * (config operations.planRequests), before anything is enqueued. A request
   * the cluster's limit refuses gives the user's slot back.
   */
  async admitPlanRequest(user: string, lockKey: string, limits: { perUser: RateWindow; perCluster: RateWindow }): Promise<PlanAdmission> {
    const bad = invalid(UserId, user) ?? invalid(LockKey, lockKey);
    if (bad) return { ok: false, scope: 'user', limit: limits.perUser, retryAfterSeconds: limits.perUser.windowSeconds };
    const now = this.now();
    const userKey = `user#${user}`;
    const mine = await this.rates.take(userKey, limits.perUser, now);
    if (!mine.ok) return { ok: false, scope: 'user', limit: limits.perUser, retryAfterSeconds: mine.retryAfterSeconds };
    const cluster = await this.rates.take(`cluster#${lockKey}`, limits.perCluster, now);
    if (cluster.ok) return { ok: true };
    await this.rates.giveBack(userKey, mine.at);
    return { ok: false, scope: 'cluster', limit: limits.perCluster, retryAfterSeconds: cluster.retryAfterSeconds };
  }

  /**
   * Takes the cluster's operation lock for request `id` (one reassignment-type run per
   * cluster at a time; lib/approvals/cluster-lock.ts). Idempotent for its holder. A lock
   * whose holder is no longer EXECUTING is stale and taken over. Refused with the holder
   * while that request runs: the caller waits (parks) and asks again.
   */
  async lockCluster(lockKey: string, id: string): Promise<ClusterLockResult> {
    const bad = invalid(LockKey, lockKey) ?? invalid(RequestId, id);
    if (bad) return { ok: false, heldBy: null, since: null, message: bad.message };
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await this.locks.take(lockKey, id, this.now())) return { ok: true };
      const lock = await this.locks.get(lockKey);
      if (!lock) continue;
      if (lock.holder === id) return { ok: true };
      const holder = await this.store.get(lock.holder);
      if (holder?.status === 'EXECUTING') {
        return { ok: false, heldBy: lock.holder, since: lock.since, message: `cluster ${lockKey} is busy with request ${lock.holder} (${holder.plan.title}), running since ${new Date(lock.since).toISOString()}; this run starts when that one ends` };
      }
      // Its run ended (finished, abandoned) without releasing the lock: take it over, unless someone else just did.
      if (await this.locks.take(lockKey, id, this.now(), lock.holder)) return { ok: true };
    }
    return { ok: false, heldBy: null, since: null, message: `cluster ${lockKey}: too many concurrent lock changes; trying again later` };
  }

  /** Releases the cluster's operation lock if request `id` holds it. */
  unlockCluster(lockKey: string, id: string): Promise<void> {
    if (invalid(LockKey, lockKey) || invalid(RequestId, id)) return Promise.resolve();
    return this.locks.release(lockKey, id);
  }

  /** Any one approver stops a running operation; the worker notices at its next check. */
  requestCancel(id: string, user: string, reason?: string) {
    return this.apply(id, { type: 'request-cancel', user, ...(reason ? { reason } : {}) }, invalid(UserId, user) ?? invalid(Reason, reason), ['cancelRequested']);
  }

  /** Any one approver resumes a paused run; the worker checks again at its next tick. */
  requestResume(id: string, user: string) {
    return this.apply(id, { type: 'request-resume', user }, invalid(UserId, user), ['resumeRequested']);
  }

  /** Operation state kept beside the request (throttle ledger...), readable by any later worker. */
  putRunData(id: string, name: string, value: unknown): Promise<void> {
    return this.store.putRunData(id, name, value);
  }

  getRunData<T>(id: string, name: string): Promise<T | null> {
    return this.store.getRunData<T>(id, name);
  }

  /** Requests the scheduled sweep must look at (open, running, owing cleanup), every page. */
  listForSweep(limit?: number): Promise<string[]> {
    return this.store.listForSweep(limit);
  }

  /** One page of them, from a cursor (the sweep's continuation resumes where it stopped). */
  sweepPage(after?: string, limit?: number): Promise<{ entries: { id: string; cursor: string }[]; next?: string }> {
    return this.store.sweepPage(after, limit);
  }

  /** The sweep showed an expiry on the plan message (see ApprovalRequest.expiryShown). */
  markExpiryShown(id: string): Promise<boolean> {
    return this.store.markExpiryShown(id);
  }

  /** The cleanup a finished request owed is done. */
  clearCleanup(id: string): Promise<boolean> {
    return this.store.clearCleanup(id);
  }

  /** A human closes a run whose worker died: FAILED, never re-run. */
  abandon(id: string, user: string, reason?: string) {
    return this.apply(id, { type: 'abandon', user, ...(reason ? { reason } : {}) }, invalid(UserId, user) ?? invalid(Reason, reason));
  }

  /** Keeps a long-running execution's lease alive (e.g. while polling a reassignment). */
  async heartbeat(id: string, workerId: string): Promise<boolean> {
    if (invalid(RequestId, id) || invalid(WorkerId, workerId)) return false;
    return this.store.renewLease(id, workerId, this.now() + this.leaseMs);
  }

  /** Current state; an open request past its deadline is expired on read (DynamoDB TTL is lazy). */
  async get(id: string): Promise<ApprovalRequest<P> | null> {
    if (invalid(RequestId, id)) return null;
    const request = await this.store.get<P>(id);
    if (request && request.expiresAt <= this.now() && (request.status === 'REQUESTED' || request.status === 'APPROVED')) {
      const result = await this.expire(id);
      return result.request;
    }
    return request;
  }

  /**
   * Mirrors the request's last event into the audit log if a dead process
   * wrote the transition but not its record (idempotent). For a request that
   * will see no further transition (a finished run): later ones repair it themselves.
   */
  async completeAuditTrail(request: ApprovalRequest<P>): Promise<void> {
    const last = request.events.at(-1);
    if (last) await this.store.audit.put(last);
  }

  private async apply(
    id: string,
    action: Action,
    inputError: InputRefusal | null,
    onlyFields?: readonly (keyof ApprovalRequest)[],
  ): Promise<ServiceResult<P>> {
    const bad = invalid(RequestId, id) ?? inputError;
    if (bad) return bad;
    const policy = await this.policy();
    let current: ApprovalRequest<P> | null = null;
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      current = await this.store.get<P>(id);
      if (!current) return refused('not-found', `no approval request ${id}`, null);
      const now = this.now();
      const decision = decide(current, action, policy, now);
      if (!decision.ok) {
        let shown = current;
        if (decision.transition) {
          // Expiry found on the way: record it (if someone else already did, fine).
          const won = await this.store.transition(current, decision.transition.request, decision.transition.event);
          shown = won ? decision.transition.request : ((await this.store.get<P>(id)) ?? current);
        }
        // A worker finding its work done or taken (a job delivered again, a duplicate tick) is not
        // someone trying something: only people's refused actions and real worker refusals are noted.
        if (!('workerId' in action && WORK_ALREADY_DONE.has(decision.refusal.code))) {
          await this.store.audit.putRefusal({ requestId: id, at: now, actor: actorOf(action), action: action.type, refusal: decision.refusal });
        }
        return refused(decision.refusal.code, decision.refusal.message, shown);
      }
      const won = await this.store.transition(
        current,
        decision.request,
        decision.event,
        { ...(action.type === 'approve' ? { addApprover: action.user } : {}), ...(onlyFields ? { onlyFields } : {}) },
      );
      if (won) {
        return {
          ok: true,
          request: decision.request,
          event: decision.event,
          message: line(decision.event),
          readyToExecute: current.status === 'REQUESTED' && decision.request.status === 'APPROVED',
        };
      }
      // Lost the race: someone else changed the request. Back off a little and decide again.
      await sleep(Math.random() * Math.min(200, 5 * 2 ** attempt));
    }
    return refused('contention', `too many concurrent changes to ${id}; try again`, current);
  }

  private async policy(): Promise<ApprovalPolicy> {
    const p = this.options.policy;
    return typeof p === 'function' ? p() : p;
  }
}

const WORK_ALREADY_DONE = new Set(['already-executed', 'already-claimed', 'not-lease-owner', 'closed']);

/** One thread line for an audit event. */
export function line(event: AuditEvent): string {
  const who = /^[UW][A-Z0-9]+$/.test(event.actor) ? `<@${event.actor}>` : event.actor;
  return `${who} ${event.message}`;
}

function actorOf(action: Action): string {
  if ('user' in action) return action.user;
  if ('workerId' in action) return action.workerId;
  return 'system';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
