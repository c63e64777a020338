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
// Every terminal state runs the kind's compensation (kinds/<kind>/); what
// it could not finish is left for the sweep. Steps are idempotent, so a tick
// that dies anywhere is simply repeated. Nothing here names a kind.

import type { ApprovalService } from '../approvals/service.ts';
import type { ApprovalRequest, FinalOutcome, Lease, RunState, StepReport } from '../approvals/types.ts';
import type { KafkaAdmin } from '../kafka/admin.ts';
import { classify, type Notice } from './failures.ts';
import { LEAVE_STOPPED_REASON, type OperationIo, type OperationKind } from './kind.ts';
import { kindOf } from './registry.ts';
import { noticeText } from './render-text.ts';
import { quorumRefusal } from './quorum-gate.ts';
import { handOverLeftovers, LEDGER_NAME } from './throttle-handover.ts';
import { compensate } from './run-compensation.ts';
import { runStep, type StepContext } from './steps.ts';
import type { ThrottleLedger } from './throttles.ts';
import type { Plan, PlanKind } from './types.ts';
import { preconditionRefusal } from './recheck.ts';
import { resolveCapabilities, type RunCapabilities } from './capabilities.ts';
import { LOCK_WAIT_MS, operationLockOf, type OperationLock } from './run-lock.ts';

export type { OperationIo } from './kind.ts';
export { cancelOwnReassignments, reassignedPartitions } from './compensation.ts';
export { describeChange } from './describe-change.ts';
export { LEDGER_NAME } from './throttle-handover.ts';
export { COMPENSATION_NAME, cleanupFinishedRun } from './run-compensation.ts';

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
/** A step watched more often than this saves its progress at most this often. */
const SAVE_PROGRESS_MS = 1_000;
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
  const acquired = await input.approvals.acquireExecution(input.requestId, input.workerId, Math.max(now(), input.deadline) + LEASE_GRACE_MS - now());
  if (!acquired.ok) return { kind: 'not-run', code: acquired.code, message: acquired.message };
  return new Tick(input, acquired.request).go(Boolean(acquired.resumedAfterDeath));
}

/** One tick of one run: its state, and what it does at each turn (check, step, park, pause, finish). */
class Tick {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly plan: Plan;
  private readonly kind: OperationKind<PlanKind>;
  private readonly clusterName: string;
  private readonly lock: OperationLock | null;
  /** Exclusive kinds (moving replicas, stopping brokers) hold the cluster's operation lock while they run. */
  private readonly locks: boolean;
  private readonly topics: string[] | null;
  private readonly ledger: StepContext['ledger'];
  private run: RunState;
  private admin: KafkaAdmin | null = null;
  private capabilities: RunCapabilities = {};
  /** The thread's posts, in order, beside the run: a step never waits for Slack (its pacing is a second a message). */
  private posts: Promise<void> = Promise.resolve();
  /** Polls of the current step's wait: how often it was looked at, for its report. */
  private watch: { polls: number; firstAt: number; savedAt: number } | null = null;

  constructor(
    private readonly input: TickInput,
    private request: ApprovalRequest<Plan>,
  ) {
    this.now = input.now ?? Date.now;
    this.sleep = input.sleep ?? sleeper;
    this.plan = request.plan;
    this.kind = kindOfPlan(this.plan);
    this.clusterName = request.context?.cluster ?? '';
    // The approvals table's lock unless the caller passes its own (null: none, only the reassignment check).
    this.lock = input.lock === undefined ? operationLockOf(input.approvals) : input.lock;
    this.locks = Boolean(this.lock && this.kind.exclusive && this.clusterName);
    this.run = request.run ?? { cursor: 0, checked: false, startedAt: this.now(), stepStartedAt: this.now(), invocations: 1 };
    this.topics = snapshotTopics(this.plan);
    const { approvals, requestId } = input;
    this.ledger = {
      get: () => approvals.getRunData<ThrottleLedger>(requestId, LEDGER_NAME),
      put: (l: ThrottleLedger) => approvals.putRunData(requestId, LEDGER_NAME, l),
    };
  }

  private leaseUntil = () => Math.max(this.now(), this.input.deadline) + LEASE_GRACE_MS;
  private lease = (parked = false, until = this.leaseUntil()): Lease => ({ owner: this.input.workerId, claimedAt: this.request.lease?.claimedAt ?? this.now(), until, ...(parked ? { parked: true } : {}) });
  /** Opened when first needed: a Cancel, and a stopped broker's start, need only the host, never the cluster. */
  private openedAdmin = async (): Promise<KafkaAdmin> => (this.admin ??= await this.input.io.openAdmin());
  private text = (notice: Notice) => noticeText(notice, this.plan.kind);
  /** The thread's posts, waited for until the invocation's deadline at most: a Slack that hangs never holds the worker past its time. */
  private async postsSaid(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, this.input.deadline - Date.now()))));
    await Promise.race([this.posts, bound]).finally(() => clearTimeout(timer));
  }

  /** Queued behind the thread's earlier posts; the tick waits for them only at its end. */
  private tell(post: () => Promise<void> | undefined): void {
    this.posts = this.posts.then(() => quietly(post()));
  }
  private setData(patch: Record<string, unknown>) {
    const data = { ...this.run.data, ...patch };
    for (const k of Object.keys(patch)) if (patch[k] === undefined) delete data[k];
    this.run = { ...this.run, data };
  }

  async go(resumedAfterDeath: boolean): Promise<TickResult> {
    const { report } = this.input;
    const request = this.request;
    if (resumedAfterDeath) this.tell(() => report.resumed?.(request));
    else if (this.run.invocations === 1 && this.run.cursor === 0 && !this.run.checked) this.tell(() => report.started?.(request));
    try {
      this.capabilities = await resolveCapabilities(this.kind.needs, this.input.io);
      for (;;) {
        const ended = await this.turn();
        if (ended) return ended;
      }
    } catch (err) {
      return await this.retryLater(err);
    } finally {
      await this.admin?.close().catch(() => undefined);
      await this.postsSaid();
    }
  }

  /** One turn of the loop: a result ends the tick, null goes on. */
  private async turn(): Promise<TickResult | null> {
    const { approvals, requestId, workerId } = this.input;
    if (this.input.signal?.aborted) return { kind: 'aborted' };
    const fresh = await approvals.get(requestId);
    if (!fresh || fresh.status !== 'EXECUTING' || fresh.lease?.owner !== workerId) {
      return { kind: 'not-run', code: 'lease-lost', message: `the run is ${fresh?.status ?? 'gone'}${fresh?.lease ? ` on ${fresh.lease.owner}` : ''}` };
    }
    this.request = fresh;
    if (fresh.cancelRequested) {
      const who = fresh.cancelRequested;
      return this.finish('CANCELLED', null, `cancelled by <@${who.user}>${who.reason ? ` (${who.reason})` : ''} at step ${this.run.cursor + 1} of ${this.plan.steps.length}`);
    }
    const pause = this.run.data?.pause as Pause | undefined;
    if (pause) {
      // Only an approver's Resume goes on; a sweep's or a scheduled tick parks it again, quietly.
      if ((fresh.resumeRequested?.at ?? 0) <= pause.at) return this.park(PAUSE_PARK_MS);
      this.setData({ pause: undefined, resumedFrom: pause.notice.code });
      if (this.kind.recheckOnResume(this.plan as never, pause.cursor)) this.run = { ...this.run, checked: false };
    }
    const connected = await this.openedAdmin();
    if (!this.run.checked) return this.check(connected);
    if (this.run.cursor >= this.plan.steps.length) return this.finish('SUCCEEDED', null, this.kind.render.success(this.plan as never));
    const ended = await this.step(connected);
    if (ended) return ended;
    if (this.now() + PARK_MARGIN_MS >= this.input.deadline) return this.park(1_000);
    return null;
  }

  /**
   * Before step 1 (and on a resume that asks for it): the cluster (and what the kind measures) must be as planned.
   * Everything it reads is read at once (the lock, the snapshot, the kind's measure, running reassignments): the
   * partition stays unwritable until the election, so the check is the round trip of its slowest read, not their sum.
   */
  private async check(connected: KafkaAdmin): Promise<TickResult | null> {
    const { approvals, requestId, workerId, report } = this.input;
    const startedAt = this.now();
    const reassigns = this.plan.steps.some((s) => s.action === 'reassign');
    // Of two approved runs, one takes the lock, checks and starts; the other waits for it (its reads are only reads).
    const lockTaken = this.locks && !this.run.data?.locked ? this.takeLock() : null;
    const snapshot = this.input.io.snapshot(this.topics);
    const [taken, live, measured, running] = await Promise.all([
      lockTaken,
      snapshot,
      this.kind.measure?.(this.input.io, this.plan as never, { admin: connected, snapshot: () => snapshot }),
      reassigns ? connected.listPartitionReassignments(null) : [],
    ]);
    if (taken && !taken.ok) return this.park(LOCK_WAIT_MS, `waiting: ${taken.message}`);
    // While the KRaft quorum has no leader nothing a run asks for can happen: it pauses, and Resume checks again.
    const quorumLost = quorumRefusal(live, 'run');
    if (quorumLost) return this.pauseFor(quorumLost);
    const refusal = preconditionRefusal(this.kind, this.plan, live, measured, running);
    const detail = refusal ? this.text(refusal.notice) : `fingerprint ${this.plan.fingerprint.slice(0, 12)} unchanged${reassigns ? '; no other reassignment running' : ''}`;
    const checkReport: StepReport = { index: -1, name: 'check preconditions', status: refusal ? 'failed' : 'ok', detail, startedAt, ...(refusal ? {} : { phase: 're-checked' as const }) };
    this.run = { ...this.run, checked: true, stepStartedAt: this.now() };
    const recorded = await approvals.recordStep(requestId, workerId, checkReport, this.run, this.leaseUntil() - this.now());
    if (!recorded.ok) throw new Error(`audit of the precondition check failed: ${recorded.message}`);
    this.run = { ...this.run, stepStartedAt: this.now() };
    this.tell(() => report.step(checkReport, recorded.request));
    if (!refusal) return null;
    const head = this.run.cursor > 0 ? `stopped before step ${this.run.cursor + 1} (steps 1–${this.run.cursor} had run)` : 'not run';
    return this.finish(refusal.status, refusal.notice, `${head}: ${this.text(refusal.notice)}`);
  }

  /** The step at the cursor: done (audited, the cursor moves), waiting (progress saved, poll or park), or a failure's class decides. */
  private async step(connected: KafkaAdmin): Promise<TickResult | null> {
    const { approvals, requestId, workerId, report } = this.input;
    const step = this.plan.steps[this.run.cursor]!;
    const resumedFrom = typeof this.run.data?.resumedFrom === 'string' ? this.run.data.resumedFrom : null;
    const snapshot = () => this.input.io.snapshot(this.topics);
    let outcome;
    try {
      // What our finished runs still owe where this step throttles is theirs to release, not the operator's.
      await handOverLeftovers(step, { approvals, requestId, cluster: this.clusterName, admin: connected, snapshot, ledger: this.ledger });
      outcome = await runStep(step, { plan: this.plan, admin: connected, snapshot, run: this.run, now: this.now, ledger: this.ledger, capabilities: this.capabilities, resumedFrom });
    } catch (err) {
      const c = classify(err);
      if (c.failure === 'fatal') return this.failStep(this.run.cursor, c.notice);
      if (c.failure === 'needs-human') return this.pauseFor(c.notice);
      throw err;
    }
    if (this.input.signal?.aborted) return { kind: 'aborted' };
    if (outcome.status === 'done') {
      const watched = this.watchedText();
      const detail = watched ? `${outcome.detail} (${watched.text})` : outcome.detail;
      const data = watched ? { ...outcome.data, watched: watched.data } : outcome.data;
      const done: StepReport = { index: this.run.cursor, name: step.action, status: 'ok', detail, ...(data ? { data } : {}), startedAt: this.run.stepStartedAt, ...(outcome.phase ? { phase: outcome.phase } : {}) };
      const { progress: _finished, ...rest } = this.run;
      this.run = { ...rest, cursor: this.run.cursor + 1, stepStartedAt: this.now() };
      this.setData({ errors: 0, resumedFrom: undefined });
      const recorded = await approvals.recordStep(requestId, workerId, done, this.run, this.leaseUntil() - this.now());
      // No audit record, no next step: the lease may be gone or the table unreachable.
      if (!recorded.ok) throw new Error(`audit of step ${done.index + 1} failed: ${recorded.message}`);
      // The next step starts once this one is audited (the stored start, a moment earlier, is what a resumed run uses).
      this.run = { ...this.run, stepStartedAt: this.now() };
      this.tell(() => report.step(done, recorded.request));
      return null;
    }
    this.run = { ...this.run, progress: { text: outcome.progress, at: this.now(), ...(outcome.data ? { data: outcome.data } : {}) } };
    this.setData({ errors: 0, resumedFrom: undefined });
    const watch = (this.watch ??= { polls: 0, firstAt: this.now(), savedAt: -Infinity });
    watch.polls++;
    // A wait watched every 50 ms saves its progress once a second, not at every look: a worker that dies repeats the look.
    if (this.now() - watch.savedAt >= SAVE_PROGRESS_MS) {
      watch.savedAt = this.now();
      if (!(await approvals.saveRun(requestId, workerId, this.run, this.lease()))) return { kind: 'not-run', code: 'lease-lost', message: 'another worker took the run over' };
      const request = this.request;
      this.tell(() => report.progress(outcome.progress, request));
    }
    const lookAgainMs = outcome.lookAgainMs ?? this.input.pollMs;
    if (this.now() + lookAgainMs + PARK_MARGIN_MS >= this.input.deadline) return this.park(lookAgainMs);
    await this.sleep(lookAgainMs);
    return null;
  }

  /** How the finished step's wait was watched (looks and their measured interval); null when it did not wait. */
  private watchedText(): { text: string; data: { looks: number; everyMs: number } } | null {
    const watch = this.watch;
    this.watch = null;
    if (!watch) return null;
    const looks = watch.polls + 1;
    const everyMs = Math.round((this.now() - watch.firstAt) / watch.polls);
    return { text: `watched: ${looks} looks, one every ${everyMs} ms`, data: { looks, everyMs } };
  }

  private async takeLock(): Promise<{ ok: true } | { ok: false; message: string }> {
    const taken = await this.lock!.take(this.clusterName, this.input.requestId);
    if (taken.ok) this.setData({ locked: true });
    return taken;
  }

  /** Transient trouble (the cluster, a host or a table unreachable): the run keeps its place and tries again later. */
  private async retryLater(err: unknown): Promise<TickResult> {
    if (this.input.signal?.aborted) return { kind: 'aborted' };
    const c = classify(err);
    const errors = Number(this.run.data?.errors ?? 0) + 1;
    this.setData({ errors });
    if (c.failure !== 'transient' || errors >= MAX_CONSECUTIVE_ERRORS) {
      return await this.finish('FAILED', c.notice, `stopped after ${errors === 1 ? '1 failed attempt' : `${errors} failed attempts in a row`} at step ${this.run.cursor + 1}: ${c.message}`).catch(() => ({ kind: 'aborted' as const }));
    }
    return await this.park(Math.min(60_000, this.input.pollMs * 2 ** Math.min(errors, 5)), `:warning: step ${this.run.cursor + 1}: ${c.message} — retrying (${errors}/${MAX_CONSECUTIVE_ERRORS})`).catch(() => ({ kind: 'aborted' as const }));
  }

  private async finish(status: FinalOutcome, notice: Notice | null, summaryText?: string): Promise<TickResult> {
    const { approvals, requestId, workerId, report } = this.input;
    const leaveStopped = this.request.cancelRequested?.reason === LEAVE_STOPPED_REASON;
    // An unreachable cluster leaves what needs it owed (the sweep retries); the host's part is done anyway.
    const reachable = this.admin ?? (await this.openedAdmin().catch(() => null));
    const { plan, run } = this;
    const compensation = await compensate(this.kind, { approvals, requestId, plan, status, run, admin: reachable, capabilities: this.capabilities, ledger: this.ledger, leaveStopped });
    const finalRun: RunState = { ...run, ...(compensation.complete ? {} : { cleanupPending: true }) };
    const head = summaryText ?? (notice ? this.text(notice) : '');
    const text = [head, ...compensation.notices.map(this.text)].filter(Boolean).join('; ');
    const done = await approvals.finish(requestId, workerId, status, text, { cursor: run.cursor, invocations: run.invocations, ...(notice ? { code: notice.code } : {}) }, finalRun);
    const after = done.ok ? done.request : ((await approvals.get(requestId)) ?? this.request);
    // Only once the run is closed: released before, a death in between would leave an open run (resumed with
    // run.data.locked set, never taking the lock again) beside another run that took it. Closed and still
    // held, the lock is stale: the next run takes it over, and a retry of this tick releases it.
    if (this.locks && run.data?.locked && after.status !== 'EXECUTING') await this.lock!.release(this.clusterName, requestId).catch(() => undefined);
    this.tell(() => report.finished(after, { status, summary: text }));
    return { kind: 'finished', status, summary: text };
  }

  private async park(delayMs: number, note?: string): Promise<TickResult> {
    const until = this.now() + delayMs + PARK_GRACE_MS;
    const saved = await this.input.approvals.saveRun(this.input.requestId, this.input.workerId, this.run, this.lease(true, until));
    if (!saved) return { kind: 'not-run', code: 'lease-lost', message: 'another worker took the run over' };
    // If this enqueue fails the parked lease runs out and the sweep schedules the tick instead.
    await this.input.scheduleNext(delayMs).catch(() => undefined);
    const request = this.request;
    if (note) this.tell(() => this.input.report.progress(note, request));
    return { kind: 'parked', cursor: this.run.cursor, nextInMs: delayMs };
  }

  /** Waits for a human: the thread says why, with Resume and Cancel; only Resume goes on. */
  private async pauseFor(notice: Notice): Promise<TickResult> {
    this.setData({ errors: 0, resumedFrom: undefined, pause: { at: this.now(), cursor: this.run.cursor, notice } satisfies Pause });
    this.run = { ...this.run, progress: { text: `paused: ${this.text(notice)}`, at: this.now(), ...(this.run.progress?.data ? { data: this.run.progress.data } : {}) } };
    const parked = await this.park(PAUSE_PARK_MS);
    if (parked.kind === 'parked') {
      const request = (await this.input.approvals.get(this.input.requestId)) ?? this.request;
      this.tell(() => this.input.report.paused?.(this.text(notice), request, notice));
    }
    return parked;
  }

  private async failStep(step: number, notice: Notice): Promise<TickResult> {
    const { approvals, requestId, workerId, report } = this.input;
    const failed: StepReport = { index: step, name: this.plan.steps[step]?.action ?? 'step', status: 'failed', detail: this.text(notice) };
    const recorded = await approvals.recordStep(requestId, workerId, failed, this.run, this.leaseUntil() - this.now());
    const request = recorded.ok ? recorded.request : this.request;
    this.tell(() => report.step(failed, request));
    return this.finish('FAILED', notice, `failed at step ${step + 1} (${this.plan.steps[step]?.description ?? ''}): ${this.text(notice)}`);
  }
}

async function quietly(p: Promise<void> | undefined): Promise<void> {
  try {
    await p;
  } catch {
    // Slack being down must not stop a reassignment.
  }
}
