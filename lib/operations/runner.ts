// Runs an approved plan as a durable state machine, one worker invocation
// ("tick") at a time. A tick takes the run's lease (claiming an APPROVED
// request, or taking over a parked run or one whose worker died), then works
// through the plan from the recorded step:
//   - before step 1, once (and again when a paused run of a kind that asks
//     for it is resumed): the live cluster, and what the kind measures, must
//     still match the plan's fingerprint (else STALE, nothing runs), and no
//     other reassignment may be running when the plan reassigns; while the
//     KRaft quorum has no leader the run pauses instead (quorum-gate.ts);
//   - a finished step is audited with the new cursor before the next starts;
//   - a step that must wait (a reassignment copying for hours) saves its
//     progress and polls while the invocation has time, then parks the run
//     and schedules the next tick (a delayed job);
//   - a failure's class decides (failures.ts): transient → retry with
//     backoff; needs-human → pause with Resume and Cancel; fatal → FAILED.
// Every terminal state runs the kind's compensation (kinds/<kind>.ts); what
// it could not finish is left for the sweep. Steps are idempotent, so a tick
// that dies anywhere is simply repeated. Nothing here names a kind.

import type { ApprovalService } from '../approvals/service.ts';
import type { ApprovalRequest, FinalOutcome, Lease, RunState, StepReport } from '../approvals/types.ts';
import type { KafkaAdmin } from '../kafka/admin.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import { digestOf } from '../approvals/fingerprint.ts';
import { classify, type Notice } from './failures.ts';
import { LEAVE_STOPPED_REASON, type CompensationContext, type CompensationResult, type OperationIo, type OperationKind } from './kind.ts';
import { listOf } from './lists.ts';
import { kindOf } from './registry.ts';
import { noticeText, noticesText } from './render-text.ts';
import { quorumRefusal } from './quorum-gate.ts';
import { describeChange } from './describe-change.ts';
import { handOverLeftovers, LEDGER_NAME, releaseKeepingLiveThrottles } from './throttle-handover.ts';
import { runStep, type StepContext } from './steps.ts';
import type { ThrottleLedger } from './throttles.ts';
import type { Plan, PlanKind } from './types.ts';
import { resolveCapabilities, type RunCapabilities } from './capabilities.ts';

export type { OperationIo } from './kind.ts';
export { cancelOwnReassignments, reassignedPartitions } from './compensation.ts';
export { describeChange } from './describe-change.ts';
export { LEDGER_NAME } from './throttle-handover.ts';

/** What the thread hears about a run. Failures to post never stop the run. */
export interface RunReporter {
  started?(request: ApprovalRequest<Plan>): Promise<void>;
  resumed?(request: ApprovalRequest<Plan>): Promise<void>;
  step(report: StepReport, request: ApprovalRequest<Plan>): Promise<void>;
  progress(text: string, request: ApprovalRequest<Plan>): Promise<void>;
  /** The run paused and waits for a human: say why, with Resume and Cancel (and the kind's own choices). */
  paused?(reason: string, request: ApprovalRequest<Plan>, notice?: Notice): Promise<void>;
  finished(request: ApprovalRequest<Plan>, outcome: { status: FinalOutcome; summary: string }): Promise<void>;
}

/**
 * The cluster-level operation lock (a conditional write in the approvals
 * table): an exclusive kind (one that moves replicas or stops brokers) takes it before its
 * precondition check and gives it back when the run ends; while another run
 * holds it, the run waits (parks), never fails. Absent: only the "no other
 * reassignment" check applies.
 */
export interface OperationLock {
  take(cluster: string, requestId: string): Promise<{ ok: true } | { ok: false; message: string }>;
  release(cluster: string, requestId: string): Promise<void>;
}

/** A run waiting for its cluster's operation lock asks again this often. */
export const LOCK_WAIT_MS = 30_000;

/** The approvals service's cluster lock (lib/approvals/cluster-lock.ts) as the runner takes it. */
export function operationLockOf(approvals: Pick<ApprovalService<Plan>, 'lockCluster' | 'unlockCluster'>): OperationLock {
  return {
    take: async (cluster, id) => {
      const r = await approvals.lockCluster(cluster, id);
      return r.ok ? { ok: true } : { ok: false, message: r.message };
    },
    release: (cluster, id) => approvals.unlockCluster(cluster, id),
  };
}

export interface TickInput {
  approvals: ApprovalService<Plan>;
  io: OperationIo;
  requestId: string;
  workerId: string;
  /** Epoch ms by which this invocation must have parked or finished (the worker's time limit, minus a margin). */
  deadline: number;
  /** Aborted when the invocation is being killed: stop at once, write nothing more (the lease runs out, the sweep resumes). */
  signal?: AbortSignal;
  /** Time between two polls of a waiting step. */
  pollMs: number;
  /** Enqueue the next tick of this run after `delayMs`. */
  scheduleNext(delayMs: number): Promise<void>;
  report: RunReporter;
  /** Taken for exclusive kinds (OperationKind.exclusive) before the precondition check; default the approvals table's lock, null for none. */
  lock?: OperationLock | null;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export type TickResult =
  | { kind: 'not-run'; code: string; message: string }
  | { kind: 'parked'; cursor: number; nextInMs: number }
  | { kind: 'finished'; status: FinalOutcome; summary: string }
  | { kind: 'aborted' };

/** A lease outlives its invocation's deadline by this much: a dead worker's run is resumed soon after. */
export const LEASE_GRACE_MS = 30_000;
/** A parked run whose next tick has not come this long after it was due is resumed by the sweep. */
export const PARK_GRACE_MS = 60_000;
/** Stop working this long before the deadline: time to park and schedule. */
const PARK_MARGIN_MS = 5_000;
/** Transient failures (cluster unreachable...) are retried on later ticks; this many in a row are fatal. */
export const MAX_CONSECUTIVE_ERRORS = 20;
/** What the compensation has finished so far (so the sweep repeats only what is still owed). */
export const COMPENSATION_NAME = 'compensation';
/** A paused run parks this long between checks that it is still paused (Resume wakes it at once). */
export const PAUSE_PARK_MS = 15 * 60_000;

const sleeper = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Kept in run.data while a run waits for a human. */
interface Pause {
  at: number;
  cursor: number;
  notice: Notice;
}

const kindOfPlan = (plan: Plan) => kindOf(plan.kind) as OperationKind<PlanKind>;

/** The topics a plan depends on: the same selection when planning and when re-checking. */
export function snapshotTopics(plan: Plan): string[] | null {
  return kindOfPlan(plan).topics(plan.params as never);
}

export async function runTick(input: TickInput): Promise<TickResult> {
  const now = input.now ?? Date.now;
  const sleep = input.sleep ?? sleeper;
  const { approvals, requestId, workerId, report } = input;
  const leaseUntil = () => Math.max(now(), input.deadline) + LEASE_GRACE_MS;

  const acquired = await approvals.acquireExecution(requestId, workerId, leaseUntil() - now());
  if (!acquired.ok) return { kind: 'not-run', code: acquired.code, message: acquired.message };
  let request = acquired.request;
  const plan = request.plan;
  const kind = kindOfPlan(plan);
  const clusterName = request.context?.cluster ?? '';
  // Exclusive kinds (moving replicas, stopping brokers) hold the cluster's operation lock while they run.
  // The approvals table's lock unless the caller passes its own (null: none, only the reassignment check).
  const lock = input.lock === undefined ? operationLockOf(approvals) : input.lock;
  const locks = Boolean(lock && kind.exclusive && clusterName);
  let run: RunState = request.run ?? { cursor: 0, checked: false, startedAt: now(), stepStartedAt: now(), invocations: 1 };
  if (acquired.resumedAfterDeath) await quietly(report.resumed?.(request));
  else if (run.invocations === 1 && run.cursor === 0 && !run.checked) await quietly(report.started?.(request));

  const lease = (parked = false, until = leaseUntil()): Lease => ({ owner: workerId, claimedAt: request.lease?.claimedAt ?? now(), until, ...(parked ? { parked: true } : {}) });
  const ledger = {
    get: () => approvals.getRunData<ThrottleLedger>(requestId, LEDGER_NAME),
    put: (l: ThrottleLedger) => approvals.putRunData(requestId, LEDGER_NAME, l),
  };
  const topics = snapshotTopics(plan);
  let admin: KafkaAdmin | null = null;
  // Opened when first needed: a Cancel, and a stopped broker's start, need only the host, never the cluster.
  const openedAdmin = async (): Promise<KafkaAdmin> => (admin ??= await input.io.openAdmin());
  let capabilities: RunCapabilities = {};
  const setData = (patch: Record<string, unknown>) => {
    const data = { ...run.data, ...patch };
    for (const k of Object.keys(patch)) if (patch[k] === undefined) delete data[k];
    run = { ...run, data };
  };

  const finish = async (status: FinalOutcome, notice: Notice | null, summaryText?: string): Promise<TickResult> => {
    const leaveStopped = request.cancelRequested?.reason === LEAVE_STOPPED_REASON;
    // An unreachable cluster leaves what needs it owed (the sweep retries); the host's part is done anyway.
    const reachable = admin ?? (await openedAdmin().catch(() => null));
    const compensation = await compensate(kind, { approvals, requestId, plan, status, run, admin: reachable, capabilities, ledger, leaveStopped });
    const finalRun: RunState = { ...run, ...(compensation.complete ? {} : { cleanupPending: true }) };
    const head = summaryText ?? (notice ? noticeText(notice, plan.kind) : '');
    const text = [head, ...compensation.notices.map((n) => noticeText(n, plan.kind))].filter(Boolean).join('; ');
    const done = await approvals.finish(requestId, workerId, status, text, { cursor: run.cursor, invocations: run.invocations, ...(notice ? { code: notice.code } : {}) }, finalRun);
    const after = done.ok ? done.request : ((await approvals.get(requestId)) ?? request);
    // Only once the run is closed: released before, a death in between would leave an open run (resumed with
    // run.data.locked set, never taking the lock again) beside another run that took it. Closed and still
    // held, the lock is stale: the next run takes it over, and a retry of this tick releases it.
    if (locks && run.data?.locked && after.status !== 'EXECUTING') await lock!.release(clusterName, requestId).catch(() => undefined);
    await quietly(report.finished(after, { status, summary: text }));
    return { kind: 'finished', status, summary: text };
  };

  const park = async (delayMs: number, note?: string): Promise<TickResult> => {
    const until = now() + delayMs + PARK_GRACE_MS;
    const saved = await approvals.saveRun(requestId, workerId, run, lease(true, until));
    if (!saved) return { kind: 'not-run', code: 'lease-lost', message: 'another worker took the run over' };
    // If this enqueue fails the parked lease runs out and the sweep schedules the tick instead.
    await input.scheduleNext(delayMs).catch(() => undefined);
    if (note) await quietly(report.progress(note, request));
    return { kind: 'parked', cursor: run.cursor, nextInMs: delayMs };
  };

  /** Waits for a human: the thread says why, with Resume and Cancel; only Resume goes on. */
  const pauseFor = async (notice: Notice): Promise<TickResult> => {
    setData({ errors: 0, resumedFrom: undefined, pause: { at: now(), cursor: run.cursor, notice } satisfies Pause });
    run = { ...run, progress: { text: `paused: ${noticeText(notice, plan.kind)}`, at: now(), ...(run.progress?.data ? { data: run.progress.data } : {}) } };
    const parked = await park(PAUSE_PARK_MS);
    if (parked.kind === 'parked') await quietly(report.paused?.(noticeText(notice, plan.kind), (await approvals.get(requestId)) ?? request, notice));
    return parked;
  };

  const failStep = async (step: number, notice: Notice): Promise<TickResult> => {
    const failed: StepReport = { index: step, name: plan.steps[step]?.action ?? 'step', status: 'failed', detail: noticeText(notice, plan.kind) };
    const recorded = await approvals.recordStep(requestId, workerId, failed, run, leaseUntil() - now());
    await quietly(report.step(failed, recorded.ok ? recorded.request : request));
    return finish('FAILED', notice, `failed at step ${step + 1} (${plan.steps[step]?.description ?? ''}): ${noticeText(notice, plan.kind)}`);
  };

  try {
    capabilities = await resolveCapabilities(kind.needs, input.io);
    const ctxFor = (connected: KafkaAdmin, resumedFrom: string | null): StepContext => ({ plan, admin: connected, snapshot: () => input.io.snapshot(topics), run, now, ledger, capabilities, resumedFrom });
    for (;;) {
      if (input.signal?.aborted) return { kind: 'aborted' };
      const fresh = await approvals.get(requestId);
      if (!fresh || fresh.status !== 'EXECUTING' || fresh.lease?.owner !== workerId) {
        return { kind: 'not-run', code: 'lease-lost', message: `the run is ${fresh?.status ?? 'gone'}${fresh?.lease ? ` on ${fresh.lease.owner}` : ''}` };
      }
      request = fresh;
      if (fresh.cancelRequested) {
        const who = fresh.cancelRequested;
        return await finish('CANCELLED', null, `cancelled by <@${who.user}>${who.reason ? ` (${who.reason})` : ''} at step ${run.cursor + 1} of ${plan.steps.length}`);
      }
      const pause = run.data?.pause as Pause | undefined;
      if (pause) {
        // Only an approver's Resume goes on; a sweep's or a scheduled tick parks it again, quietly.
        if ((fresh.resumeRequested?.at ?? 0) <= pause.at) return await park(PAUSE_PARK_MS);
        setData({ pause: undefined, resumedFrom: pause.notice.code });
        if (kind.recheckOnResume(plan as never, pause.cursor)) run = { ...run, checked: false };
      }
      const connected = await openedAdmin();
      if (!run.checked) {
        // The cluster (and what the kind measures) must be as planned; a lock or another reassignment refuses.
        if (locks && !run.data?.locked) {
          // Of two approved runs, one takes the lock, checks and starts; the other waits for it.
          const taken = await lock!.take(clusterName, requestId);
          if (!taken.ok) return await park(LOCK_WAIT_MS, `waiting: ${taken.message}`);
          setData({ locked: true });
        }
        const snapshot = await input.io.snapshot(topics);
        // While the KRaft quorum has no leader nothing a run asks for can happen: it pauses, and Resume checks again.
        const quorumLost = quorumRefusal(snapshot, 'run');
        if (quorumLost) return await pauseFor(quorumLost);
        const refusal = await preconditionCheck(kind, plan, input.io, connected, snapshot);
        const checkReport: StepReport = { index: -1, name: 'check preconditions', status: refusal ? 'failed' : 'ok', detail: refusal ? noticeText(refusal.notice, plan.kind) : `fingerprint ${plan.fingerprint.slice(0, 12)} unchanged${plan.steps.some((s) => s.action === 'reassign') ? '; no other reassignment running' : ''}` };
        run = { ...run, checked: true, stepStartedAt: now() };
        const recorded = await approvals.recordStep(requestId, workerId, checkReport, run, leaseUntil() - now());
        if (!recorded.ok) throw new Error(`audit of the precondition check failed: ${recorded.message}`);
        await quietly(report.step(checkReport, recorded.request));
        if (refusal) {
          const head = run.cursor > 0 ? `stopped before step ${run.cursor + 1} (steps 1–${run.cursor} had run)` : 'not run';
          return await finish(refusal.status, refusal.notice, `${head}: ${noticeText(refusal.notice, plan.kind)}`);
        }
        continue;
      }
      if (run.cursor >= plan.steps.length) return await finish('SUCCEEDED', null, kind.render.success(plan as never));

      const step = plan.steps[run.cursor]!;
      const resumedFrom = typeof run.data?.resumedFrom === 'string' ? run.data.resumedFrom : null;
      let outcome;
      try {
        // What our finished runs still owe where this step throttles is theirs to release, not the operator's.
        await handOverLeftovers(step, { approvals, requestId, cluster: clusterName, admin: connected, snapshot: () => input.io.snapshot(topics), ledger });
        outcome = await runStep(step, ctxFor(connected, resumedFrom));
      } catch (err) {
        const c = classify(err);
        if (c.failure === 'fatal') return await failStep(run.cursor, c.notice);
        if (c.failure === 'needs-human') return await pauseFor(c.notice);
        throw err;
      }
      if (input.signal?.aborted) return { kind: 'aborted' };
      if (outcome.status === 'done') {
        const done: StepReport = { index: run.cursor, name: step.action, status: 'ok', detail: outcome.detail, ...(outcome.data ? { data: outcome.data } : {}) };
        const { progress: _finished, ...rest } = run;
        run = { ...rest, cursor: run.cursor + 1, stepStartedAt: now() };
        setData({ errors: 0, resumedFrom: undefined });
        const recorded = await approvals.recordStep(requestId, workerId, done, run, leaseUntil() - now());
        // No audit record, no next step: the lease may be gone or the table unreachable.
        if (!recorded.ok) throw new Error(`audit of step ${done.index + 1} failed: ${recorded.message}`);
        await quietly(report.step(done, recorded.request));
      } else {
        run = { ...run, progress: { text: outcome.progress, at: now(), ...(outcome.data ? { data: outcome.data } : {}) } };
        setData({ errors: 0, resumedFrom: undefined });
        if (!(await approvals.saveRun(requestId, workerId, run, lease()))) return { kind: 'not-run', code: 'lease-lost', message: 'another worker took the run over' };
        await quietly(report.progress(outcome.progress, request));
        if (now() + input.pollMs + PARK_MARGIN_MS >= input.deadline) return await park(input.pollMs);
        await sleep(input.pollMs);
      }
      if (now() + PARK_MARGIN_MS >= input.deadline) return await park(1_000);
    }
  } catch (err) {
    if (input.signal?.aborted) return { kind: 'aborted' };
    const c = classify(err);
    // Transient trouble (the cluster, a host or a table unreachable): the run keeps its place and tries again later.
    const errors = Number(run.data?.errors ?? 0) + 1;
    setData({ errors });
    if (c.failure !== 'transient' || errors >= MAX_CONSECUTIVE_ERRORS) {
      return await finish('FAILED', c.notice, `stopped after ${errors === 1 ? '1 failed attempt' : `${errors} failed attempts in a row`} at step ${run.cursor + 1}: ${c.message}`).catch(() => ({ kind: 'aborted' as const }));
    }
    return await park(Math.min(60_000, input.pollMs * 2 ** Math.min(errors, 5)), `:warning: step ${run.cursor + 1}: ${c.message} — retrying (${errors}/${MAX_CONSECUTIVE_ERRORS})`).catch(() => ({ kind: 'aborted' as const }));
  } finally {
    // Assigned inside closures, which TypeScript's narrowing does not follow.
    await (admin as KafkaAdmin | null)?.close().catch(() => undefined);
  }
}

/** The plan must still fit the cluster (and what the kind measures), and nobody else's reassignment may be running. */
async function preconditionCheck(kind: OperationKind<PlanKind>, plan: Plan, io: OperationIo, admin: KafkaAdmin, snapshot: ClusterSnapshot): Promise<{ status: 'STALE' | 'FAILED'; notice: Notice } | null> {
  const measured = kind.measure ? await kind.measure(io, plan as never, snapshot) : undefined;
  const current = kind.preconditions(plan.params as never, snapshot, measured);
  if (digestOf(current) !== plan.fingerprint) return { status: 'STALE', notice: { code: 'stale', change: describeChange(plan.preconditions, current) } };
  if (plan.steps.some((s) => s.action === 'reassign')) {
    // Cruise Control's rule: never start a reassignment while another one runs.
    const running = await admin.listPartitionReassignments(null);
    if (running.length > 0) return { status: 'FAILED', notice: { code: 'other-reassignment', partitions: listOf(running.map((r) => `${r.topic}-${r.partition}`)) } };
  }
  return null;
}

interface CompensationInput extends Omit<CompensationContext, 'done'> {
  approvals: ApprovalService<Plan>;
  requestId: string;
}

/** Runs the kind's compensation with what earlier attempts finished, and records what this one did. */
async function compensate(kind: OperationKind<PlanKind>, c: CompensationInput): Promise<CompensationResult> {
  let done: Record<string, unknown> = {};
  try {
    done = (await c.approvals.getRunData<Record<string, unknown>>(c.requestId, COMPENSATION_NAME)) ?? {};
  } catch {
    // Unreadable: the compensation's own checks (target, pid, ledger) keep a repeat harmless.
  }
  let result: CompensationResult;
  try {
    result = await kind.compensate({ plan: c.plan, status: c.status, run: c.run, admin: c.admin, capabilities: c.capabilities, ledger: c.ledger, done, leaveStopped: c.leaveStopped });
  } catch (err) {
    result = { notices: [classify(err).notice], complete: false, done: {} };
  }
  if (Object.keys(result.done).length) await c.approvals.putRunData(c.requestId, COMPENSATION_NAME, { ...done, ...result.done }).catch(() => undefined);
  return result;
}

/**
 * The sweep's cleanup of a finished (or abandoned) run that still owes some:
 * the kind's compensation again, with what earlier attempts finished.
 */
export async function cleanupFinishedRun(approvals: ApprovalService<Plan>, io: OperationIo, request: ApprovalRequest<Plan>, options: { clear?: boolean } = {}): Promise<{ complete: boolean; text: string }> {
  // Unreachable, what needs the cluster stays owed; a stopped broker is still started.
  const admin = await io.openAdmin().catch(() => null);
  try {
    const plan = request.plan;
    const capabilities = await resolveCapabilities(kindOfPlan(plan).needs, io);
    // A release that raced a live run's start must not leave that run unthrottled (throttle-handover.ts).
    const result = await releaseKeepingLiveThrottles(approvals, admin, request, () => compensate(kindOfPlan(plan), {
      approvals,
      requestId: request.id,
      plan,
      status: request.outcome?.status ?? 'FAILED',
      run: request.run ?? { cursor: 0, checked: false, startedAt: 0, stepStartedAt: 0, invocations: 0 },
      admin,
      capabilities,
      ledger: { get: () => approvals.getRunData<ThrottleLedger>(request.id, LEDGER_NAME) },
      leaveStopped: request.cancelRequested?.reason === LEAVE_STOPPED_REASON,
    }));
    // The sweep clears it itself after saying so in the thread (clear: false), so a death in between is retried.
    if (result.complete && options.clear !== false) await approvals.clearCleanup(request.id);
    return { complete: result.complete, text: noticesText(result.notices, plan.kind) };
  } finally {
    await admin?.close().catch(() => undefined);
  }
}

async function quietly(p: Promise<void> | undefined): Promise<void> {
  try {
    await p;
  } catch {
    // Slack being down must not stop a reassignment.
  }
}
