// Runs an approved plan as a durable state machine, one worker invocation
// ("tick") at a time. A tick takes the run's lease (claiming an APPROVED
// request, or taking over a parked run or one whose worker died), then works
// through the plan from the recorded step:
//   - before step 1, once: the live cluster must still match the plan's
//     fingerprint (else STALE, nothing runs) and no other reassignment may be
//     running;
//   - a finished step is audited with the new cursor before the next starts;
//   - a step that must wait (a reassignment copying for hours) saves its
//     progress and polls while the invocation has time, then parks the run
//     and schedules the next tick (a delayed job);
//   - an approver's cancel stops in-flight reassignments.
// Every terminal state (SUCCEEDED, FAILED, CANCELLED, STALE) removes the
// throttles this run set; what could not be removed is left for the sweep.
// Steps are idempotent, so a tick that dies anywhere is simply repeated.

import type { ApprovalService } from '../approvals/service.ts';
import type { ApprovalRequest, FinalOutcome, Lease, RunState, StepReport } from '../approvals/types.ts';
import type { KafkaAdmin } from '../kafka/admin.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import { digestOf } from '../approvals/fingerprint.ts';
import { preconditionsFor } from './planners.ts';
import { StepFailed, reassignedBy, runStep, stillMoving, type StepContext } from './steps.ts';
import { removeThrottles, type ThrottleLedger } from './throttles.ts';
import type { Plan, PlanTarget, TopicPartition } from './types.ts';
import { errorMessage } from '../runtime/errors.ts';
import { restartLeftover, type RestartIo } from './restart.ts';

/** The cluster as a run sees it: the protocol admin and snapshots. */
export interface OperationIo {
  openAdmin(): Promise<KafkaAdmin>;
  snapshot(topics: string[] | null): Promise<ClusterSnapshot>;
  /** Broker restarts: host control; absent or null without host access. */
  restart?(): Promise<RestartIo | null>;
}

/** What the thread hears about a run. Failures to post never stop the run. */
export interface RunReporter {
  started?(request: ApprovalRequest<Plan>): Promise<void>;
  resumed?(request: ApprovalRequest<Plan>): Promise<void>;
  step(report: StepReport, request: ApprovalRequest<Plan>): Promise<void>;
  progress(text: string, request: ApprovalRequest<Plan>): Promise<void>;
  /** The run paused and waits for a human: say why, with Resume and Cancel. */
  paused?(reason: string, request: ApprovalRequest<Plan>): Promise<void>;
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
/** Transient failures (cluster unreachable...) are retried on later ticks; this many in a row fail the run. */
const MAX_CONSECUTIVE_ERRORS = 20;
export const LEDGER_NAME = 'throttles';
/** A paused run parks this long between checks that it is still paused (Resume wakes it at once). */
export const PAUSE_PARK_MS = 15 * 60_000;
/** A run waiting for its cluster's operation lock asks again this often. */
export const LOCK_WAIT_MS = 30_000;

const sleeper = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The topics a plan depends on: the same selection when planning and when re-checking. */
export function snapshotTopics(plan: PlanTarget): string[] | null {
  switch (plan.kind) {
    case 'drain-broker':
    case 'restart-brokers':
      return null;
    case 'leader-override':
    case 'raise-replication-factor':
      return [plan.params.topic];
    case 'reassign':
    case 'preferred-election':
      return [...new Set(plan.params.partitions.map((p) => p.topic))];
  }
}

/** Every partition a plan reassigns. */
export function reassignedPartitions(plan: Plan): TopicPartition[] {
  return plan.steps.flatMap((s) => (s.action === 'reassign' ? s.partitions.map(({ topic, partition }) => ({ topic, partition })) : []));
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
  // One reassignment-type run per cluster at a time (lib/approvals/cluster-lock.ts), held until its end.
  const lockKey = plan.steps.some((s) => s.action === 'reassign') ? (request.context?.cluster ?? null) : null;

  const finish = async (status: FinalOutcome, summary: string): Promise<TickResult> => {
    const cleanup = admin ? await settle(admin, plan, status, ledger) : { text: '', complete: false };
    const finalRun: RunState = { ...run, ...(cleanup.complete ? {} : { cleanupPending: true }) };
    const leftover = status !== 'SUCCEEDED' && plan.kind === 'restart-brokers' ? restartLeftover(plan.steps, run.cursor, run.progress?.data) : null;
    const text = `${summary}${cleanup.text}${leftover ? `; ${leftover}` : ''}`;
    const done = await approvals.finish(requestId, workerId, status, text, { cursor: run.cursor, invocations: run.invocations }, finalRun);
    if (lockKey) await approvals.unlockCluster(lockKey, requestId).catch(() => undefined);
    const after = done.ok ? done.request : ((await approvals.get(requestId)) ?? request);
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

  try {
    admin = await input.io.openAdmin();
    const restartIo = plan.kind === 'restart-brokers' ? ((await input.io.restart?.()) ?? null) : null;
    const ctxFor = (): StepContext => ({ plan, admin: admin!, snapshot: () => input.io.snapshot(topics), run, now, ledger, restart: restartIo, resumeRequestedAt: request.resumeRequested?.at ?? null });
    for (;;) {
      if (input.signal?.aborted) return { kind: 'aborted' };
      const fresh = await approvals.get(requestId);
      if (!fresh || fresh.status !== 'EXECUTING' || fresh.lease?.owner !== workerId) {
        return { kind: 'not-run', code: 'lease-lost', message: `the run is ${fresh?.status ?? 'gone'}${fresh?.lease ? ` on ${fresh.lease.owner}` : ''}` };
      }
      request = fresh;
      if (fresh.cancelRequested) {
        const who = fresh.cancelRequested;
        return await finish('CANCELLED', `cancelled by <@${who.user}>${who.reason ? ` (${who.reason})` : ''} at step ${run.cursor + 1} of ${plan.steps.length}`);
      }
      if (lockKey && !run.checked) {
        // Taken before the "no other reassignment" check: of two approved runs, one checks and starts, the other waits.
        const lock = await approvals.lockCluster(lockKey, requestId);
        if (!lock.ok) return await park(LOCK_WAIT_MS, `waiting: ${lock.message}`);
      }
      if (!run.checked) {
        const refusal = await preconditionCheck(plan, admin, await input.io.snapshot(topics));
        const checkReport: StepReport = { index: -1, name: 'check preconditions', status: refusal ? 'failed' : 'ok', detail: refusal?.detail ?? `fingerprint ${plan.fingerprint.slice(0, 12)} unchanged; no other reassignment running` };
        run = { ...run, checked: true, stepStartedAt: now() };
        const recorded = await approvals.recordStep(requestId, workerId, checkReport, run, leaseUntil() - now());
        if (!recorded.ok) throw new Error(`audit of the precondition check failed: ${recorded.message}`);
        await quietly(report.step(checkReport, recorded.request));
        if (refusal) return await finish(refusal.status, refusal.summary);
        continue;
      }
      if (run.cursor >= plan.steps.length) return await finish('SUCCEEDED', successSummary(plan));

      const step = plan.steps[run.cursor]!;
      let outcome;
      try {
        outcome = await runStep(step, ctxFor());
      } catch (err) {
        if (err instanceof StepFailed) {
          const failed: StepReport = { index: run.cursor, name: step.action, status: 'failed', detail: err.message };
          await approvals.recordStep(requestId, workerId, failed, run, leaseUntil() - now());
          await quietly(report.step(failed, request));
          return await finish('FAILED', `failed at step ${run.cursor + 1} (${step.description}): ${err.message}`);
        }
        throw err;
      }
      if (input.signal?.aborted) return { kind: 'aborted' };
      if (outcome.status === 'done') {
        const done: StepReport = { index: run.cursor, name: step.action, status: 'ok', detail: outcome.detail, ...(outcome.data ? { data: outcome.data } : {}) };
        const { progress: _finished, data: _data, ...rest } = run;
        run = { ...rest, ...(run.data ? { data: { ...run.data, errors: 0 } } : {}), cursor: run.cursor + 1, stepStartedAt: now() };
        const recorded = await approvals.recordStep(requestId, workerId, done, run, leaseUntil() - now());
        // No audit record, no next step: the lease may be gone or the table unreachable.
        if (!recorded.ok) throw new Error(`audit of step ${done.index + 1} failed: ${recorded.message}`);
        await quietly(report.step(done, recorded.request));
      } else if (outcome.status === 'paused') {
        run = { ...run, progress: { text: `paused: ${outcome.reason}`, at: now(), data: outcome.data }, data: { ...run.data, errors: 0 } };
        const parked = await park(PAUSE_PARK_MS);
        if (!outcome.quiet && parked.kind === 'parked') await quietly(report.paused?.(outcome.reason, (await approvals.get(requestId)) ?? request));
        return parked;
      } else {
        run = { ...run, progress: { text: outcome.progress, at: now(), ...(outcome.data ? { data: outcome.data } : {}) }, data: { ...run.data, errors: 0 } };
        if (!(await approvals.saveRun(requestId, workerId, run, lease()))) return { kind: 'not-run', code: 'lease-lost', message: 'another worker took the run over' };
        await quietly(report.progress(outcome.progress, request));
        if (now() + input.pollMs + PARK_MARGIN_MS >= input.deadline) return await park(input.pollMs);
        await sleep(input.pollMs);
      }
      if (now() + PARK_MARGIN_MS >= input.deadline) return await park(1_000);
    }
  } catch (err) {
    if (input.signal?.aborted) return { kind: 'aborted' };
    // Transient trouble (the cluster or a table unreachable): the run keeps its place and tries again later.
    const errors = Number(run.data?.errors ?? 0) + 1;
    run = { ...run, data: { ...run.data, errors } };
    const message = errorMessage(err);
    if (errors >= MAX_CONSECUTIVE_ERRORS) return await finish('FAILED', `stopped after ${errors} failed attempts in a row at step ${run.cursor + 1}: ${message}`).catch(() => ({ kind: 'aborted' as const }));
    return await park(Math.min(60_000, input.pollMs * 2 ** Math.min(errors, 5)), `:warning: step ${run.cursor + 1}: ${message} — retrying (${errors}/${MAX_CONSECUTIVE_ERRORS})`).catch(() => ({ kind: 'aborted' as const }));
  } finally {
    await admin?.close().catch(() => undefined);
  }
}

interface Refusal {
  status: 'STALE' | 'FAILED';
  summary: string;
  detail: string;
}

/** The plan must still fit the cluster, and nobody else's reassignment may be running. */
async function preconditionCheck(plan: Plan, admin: KafkaAdmin, snapshot: ClusterSnapshot): Promise<Refusal | null> {
  const current = preconditionsFor(plan, snapshot);
  if (digestOf(current) !== plan.fingerprint) {
    const detail = `cluster changed since the plan was made: ${describeChange(plan.preconditions, current)}`;
    return { status: 'STALE', summary: `not run: the cluster changed since the plan was made (${detail})`, detail };
  }
  if (plan.steps.some((s) => s.action === 'reassign')) {
    // Cruise Control's rule: never start a reassignment while another one runs.
    const running = await admin.listPartitionReassignments(null);
    if (running.length > 0) {
      const names = running.slice(0, 5).map((r) => `${r.topic}-${r.partition}`).join(', ');
      const detail = `another reassignment is running: ${names}${running.length > 5 ? '…' : ''}`;
      return { status: 'FAILED', summary: `not run: ${detail}`, detail };
    }
  }
  return null;
}

/**
 * What every terminal state owes: a run that did not succeed leaves no
 * reassignment of its own running unwatched, and no run leaves a throttle.
 */
async function settle(
  admin: KafkaAdmin,
  plan: Plan,
  status: FinalOutcome,
  ledger: { get(): Promise<ThrottleLedger | null> },
): Promise<{ text: string; complete: boolean }> {
  const notes: string[] = [];
  let complete = true;
  if (status !== 'SUCCEEDED' && status !== 'STALE') {
    try {
      const stopped = await cancelOwnReassignments(admin, plan);
      if (stopped > 0) notes.push(`${stopped} partition(s) still copying were stopped and keep their original replicas`);
    } catch (err) {
      complete = false;
      notes.push(`could not stop the reassignment: ${errorMessage(err)}`);
    }
  }
  try {
    const l = await ledger.get();
    if (l) {
      const removal = await removeThrottles(admin, l);
      if (removal.complete) notes.push('throttles removed');
      else {
        complete = false;
        notes.push(`throttles not yet removed (${removal.problems.slice(0, 2).join('; ')}): retried every minute until gone`);
      }
    }
  } catch (err) {
    complete = false;
    notes.push(`throttles not yet removed (${errorMessage(err)}): retried every minute until gone`);
  }
  return { text: notes.length ? `; ${notes.join('; ')}` : '', complete };
}

/** AlterPartitionReassignments with null targets for this plan's partitions still moving. */
export async function cancelOwnReassignments(admin: KafkaAdmin, plan: Plan): Promise<number> {
  const partitions = reassignedPartitions(plan);
  if (partitions.length === 0) return 0;
  const moving = await stillMoving(admin, partitions);
  if (moving.length === 0) return 0;
  const results = await admin.alterPartitionReassignments(moving.map((m) => ({ topic: m.topic, partition: m.partition, replicas: null })));
  // NO_REASSIGNMENT_IN_PROGRESS (85): it finished between the listing and the cancel.
  const failed = results.filter((r) => r.errorCode !== 0 && r.errorCode !== 85);
  if (failed.length) throw new Error(failed.slice(0, 3).map((r) => `${r.topic}-${r.partition}: ${r.error ?? r.errorCode}`).join('; '));
  return moving.length;
}

/**
 * The sweep's cleanup of a finished run that still owes some: stops its own
 * reassignments (unless it succeeded) and removes its throttles.
 */
export async function cleanupFinishedRun(approvals: ApprovalService<Plan>, io: OperationIo, request: ApprovalRequest<Plan>): Promise<{ complete: boolean; text: string }> {
  const admin = await io.openAdmin();
  try {
    const ledger = { get: () => approvals.getRunData<ThrottleLedger>(request.id, LEDGER_NAME) };
    const status = request.outcome?.status ?? 'FAILED';
    const result = await settle(admin, request.plan, status, ledger);
    if (result.complete) await approvals.clearCleanup(request.id);
    return result;
  } finally {
    await admin.close().catch(() => undefined);
  }
}

function successSummary(plan: Plan): string {
  switch (plan.kind) {
    case 'leader-override':
      return `broker ${plan.params.replica} leads ${plan.params.topic}-${plan.params.partition}`;
    case 'restart-brokers':
      return `restarted broker ${plan.params.brokers.join(', ')} one at a time; each is back in every ISR`;
    case 'drain-broker':
      return plan.params.partial
        ? `moved every replica of broker ${plan.params.broker} that had somewhere to go`
        : `broker ${plan.params.broker} holds no replicas any more`;
    default:
      return `${plan.title}: done`;
  }
}

export function describeChange(before: unknown, after: unknown): string {
  if (typeof before !== 'object' || before === null || typeof after !== 'object' || after === null) return 'state differs';
  const changed: string[] = [];
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = JSON.stringify(a[key]);
    const y = JSON.stringify(b[key]);
    if (x !== y && key !== 'summarized') changed.push(key === 'partitions' ? 'partition assignment' : `${key} ${short(x)} → ${short(y)}`);
  }
  return changed.join(', ') || 'state differs';
}

function short(s: string | undefined): string {
  if (s === undefined) return 'absent';
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

async function quietly(p: Promise<void> | undefined): Promise<void> {
  try {
    await p;
  } catch {
    // Slack being down must not stop a reassignment.
  }
}

export { reassignedBy };
