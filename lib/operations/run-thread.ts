// Posts a run's life to its plan thread: steps, one progress message edited in
// place, resume, pause, follow-up proposals, the summary. A tick runs again
// when its worker died (SQS delivers the job again, the sweep resumes the
// run), so each message is posted once per purpose (lib/worker/post-once.ts,
// scoped by the request: every tick of the run shares the record), and what a
// dead tick wrote but never said is said by the next one: the last audited
// step on resume, the summary of a run already closed.
import type { ApprovalRequest, AuditEvent, FinalOutcome, StepReport } from '../approvals/types.ts';
import type { ApprovalService } from '../approvals/service.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { SlackMessage } from '../slack/blocks.ts';
import { clip } from '../slack/limits.ts';
import { recordFinishedOperation } from '../state/cluster-ops.ts';
import { oncePoster, type OncePoster } from '../worker/post-once.ts';
import { postedByJob } from '../worker/posted.ts';
import { followUpJobs } from './follow-ups.ts';
import type { OperationsContext } from './job-context.ts';
import { refreshPlanMessage, type PlanMessageRef } from './plan-message.ts';
import { renderFollowUps, renderPaused, renderStep, renderSummary } from './render-slack.ts';
import { describeOpsRequest, type OpsPlanJob } from './requests.ts';
import type { RunReporter } from './runner.ts';
import { operationLockOf } from './run-lock.ts';
import { kindOf } from './registry.ts';
import type { Plan } from './types.ts';

/** Every tick of one run posts under this scope: a purpose is one message for the whole run. */
export const runScope = (requestId: string) => `ops-run:${requestId}`;
/** Below the post-once record's lifetime (24 h): a summary owed is posted by a retry within this, never again later. */
const OWED_WINDOW_MS = 12 * 3600_000;
/** A finish takes seconds; SQS redelivers a dead tick's job after its visibility timeout (18 min). */
const SETTLE_GRACE_MS = 2 * 60_000;
/** The audit events a run's own finish writes (an abandon by a human is said by its handler). */
const FINISHED_BY_RUN = new Set(['succeeded', 'failed', 'stale', 'cancelled']);

export type ThreadReporter = RunReporter & { say(purpose: string, m: SlackMessage | { text: string }): Promise<void> };

const auditLine = (e: { type: string; actor: string; message: string; at: number }) => `${new Date(e.at).toISOString().slice(11, 19)} ${e.type} by ${e.actor}: ${e.message}`;

/** The step report an audited step event stands for (its detail is in the audit message). */
function reportOf(e: AuditEvent): StepReport {
  const detail = e.message.split(' — ').slice(1).join(' — ');
  return { index: Number(e.data?.index ?? 0), name: String(e.data?.name ?? 'step'), status: (e.data?.status as StepReport['status']) ?? 'ok', ...(detail ? { detail } : {}), ...(e.data?.data ? { data: e.data.data as Record<string, unknown> } : {}) };
}

/** The audit event of the latest report of this step: its seq names the message (a re-check after a pause is another). */
const stepEvent = (request: ApprovalRequest<Plan>, index: number) => request.events.findLast((e) => e.type === 'step' && Number(e.data?.index) === index);

export async function threadReporter(ctx: OperationsContext, requestId: string, ref: PlanMessageRef | null): Promise<ThreadReporter> {
  const { slack, log } = ctx;
  const once = await oncePoster(ctx, runScope(requestId));
  const say = async (purpose: string, m: SlackMessage | { text: string }) => {
    if (ref) await once.post(purpose, { channel: ref.channel, thread_ts: ref.threadTs, ...m }).catch((e) => log.warn('could not post to the plan thread', { purpose, error: errorMessage(e) }));
  };
  let lastProgress = 0;
  /** The run's one progress message: posted once per run (a tick that died after posting it finds it), then edited. */
  const showProgress = async (m: { text: string }) => {
    if (!ref) return;
    const posted = await once.post('progress', { channel: ref.channel, thread_ts: ref.threadTs, ...m }).catch(() => undefined);
    if (posted?.earlier) await slack.update({ channel: posted.channel, ts: posted.ts, ...m }).catch(() => undefined);
  };
  const step = async (report: StepReport, request: ApprovalRequest<Plan>) => {
    const seq = stepEvent(request, report.index)?.seq;
    await say(`step-${report.index}-${seq ?? 'unaudited'}`, renderStep(report));
    if (report.index < 0) await refreshPlanMessage(ctx, request, ref);
    await proposeFollowUps(ctx, once, request, report, ref, seq);
  };
  return {
    say,
    async started(request) {
      await refreshPlanMessage(ctx, request, ref);
    },
    async resumed(request) {
      const cursor = request.run?.cursor ?? 0;
      await say(`resumed-${cursor}`, { text: `:arrows_counterclockwise: Resumed at step ${cursor + 1} of ${request.plan.steps.length}: the previous worker stopped reporting. Steps are safe to repeat.` });
      // The dead tick may have audited its last step and died before saying so (or proposing what it found).
      const last = request.events.findLast((e) => e.type === 'step');
      if (last) await step(reportOf(last), request);
      await refreshPlanMessage(ctx, request, ref);
    },
    step,
    async progress(text, request) {
      // At most one edit every 5 s: a reassignment polls often, chat.update is rate-limited.
      if (!ref || Date.now() - lastProgress < 5_000) return;
      lastProgress = Date.now();
      await showProgress({ text: `:hourglass_flowing_sand: step ${(request.run?.cursor ?? 0) + 1}: ${clip(text, 1500)}` });
    },
    async paused(reason, request) {
      const pause = request.run?.data?.pause as { at?: number } | undefined;
      await say(`paused-${pause?.at ?? request.run?.cursor ?? 0}`, renderPaused(request, reason));
      await refreshPlanMessage(ctx, request, ref);
    },
    async finished(request, outcome) {
      const cluster = request.context?.cluster;
      const at = request.outcome?.at ?? Date.now();
      if (cluster) await recordFinishedOperation(ctx.store, cluster, { requestId: request.id, kind: request.plan.kind, title: request.plan.title, outcome: outcome.status, at: new Date(at).toISOString() }, log);
      if (outcome.status === 'STALE') {
        // A plan re-checked mid-way (a restart resumed at a later broker) already ran its first steps.
        const ran = request.run?.cursor ?? 0;
        const what = ran > 0 ? `Steps 1–${ran} of ${request.plan.steps.length} had run; nothing after them ran.` : 'Nothing ran.';
        await say('stale', { text: `:warning: *STALE*: the cluster changed since the plan was made (fingerprint \`${request.plan.fingerprint.slice(0, 16)}\` no longer matches the live cluster). ${what} Request a new plan.` });
      }
      // A run that showed progress ends it with its outcome, so the thread never keeps a stale
      // "3 of 7 done" (and a tick that died after announcing it still leaves the same last word).
      if (once.attempted('progress')) await showProgress({ text: `${outcome.status === 'SUCCEEDED' ? ':white_check_mark:' : ':octagonal_sign:'} ${outcome.status}: no more progress to show; the summary follows.` });
      const started = request.run?.startedAt ?? request.createdAt;
      await say(
        'summary',
        renderSummary(request, {
          status: outcome.status,
          summary: outcome.summary,
          steps: request.events.filter((e) => e.type === 'step').map((e) => ({ ...reportOf(e), ...(typeof e.data?.startedAt === 'number' ? { tookMs: e.at - e.data.startedAt } : {}) })),
          audit: request.events.map(auditLine),
          durationMs: at - started,
        }),
      );
      await refreshPlanMessage(ctx, request, ref);
    },
  };
}

/**
 * A tick found the run already closed. If the tick that closed it died before
 * the end of its finish (the summary, the plan message, the cluster lock),
 * this one finishes it: the summary once (its purpose), the release only if
 * this run holds it.
 */
export async function settleClosedRun(ctx: OperationsContext, approvals: ApprovalService<Plan>, request: ApprovalRequest<Plan>, reporter: ThreadReporter): Promise<void> {
  const outcome = request.outcome;
  if (!outcome || !request.run || !request.events.some((e) => FINISHED_BY_RUN.has(e.type))) return;
  // A tick that is still finishing (a duplicate tick running beside it) is not a dead one: leave it its finish.
  const since = approvals.now() - outcome.at;
  if (since < SETTLE_GRACE_MS || since > OWED_WINDOW_MS) return;
  await approvals.completeAuditTrail(request);
  const cluster = request.context?.cluster;
  if (cluster && kindOf(request.plan.kind).exclusive) await operationLockOf(approvals).release(cluster, request.id).catch(() => undefined);
  if (!(await postedByJob(ctx.store, runScope(request.id), ctx.log)).posts?.summary?.ts) ctx.log.warn('the run closed without its summary in the thread (its worker died): posting it', { requestId: request.id });
  // Whatever the dead tick had not reached of its finish: the summary once, the plan message's final state.
  await reporter.finished(request, { status: outcome.status as FinalOutcome, summary: outcome.summary });
}

/** What a step proposes (an abort after the election's check) is planned in the run's thread for two approvals. */
async function proposeFollowUps(ctx: OperationsContext, once: OncePoster, request: ApprovalRequest<Plan>, report: StepReport, ref: PlanMessageRef | null, seq: number | undefined): Promise<void> {
  if (!ref) return;
  const jobs = followUpJobs(request, report, { channel: ref.channel, threadTs: ref.threadTs }, ctx.job.correlationId);
  if (jobs.length === 0) return;
  if (!ctx.queue) {
    ctx.log.warn('a step proposed plans but the worker has no queue to plan them on', { requestId: request.id, proposals: jobs.length });
    return;
  }
  // Enqueued again by a retry: harmless, each plan's request id is derived from this run and the proposal.
  for (const job of jobs) await ctx.queue.enqueue(job);
  const message = renderFollowUps(jobs.map((j) => describeOpsRequest((j.payload as OpsPlanJob).request)));
  await once.post(`follow-ups-${report.index}-${seq ?? 'unaudited'}`, { channel: ref.channel, thread_ts: ref.threadTs, ...message }).catch((e) => ctx.log.warn('could not post to the plan thread', { error: errorMessage(e) }));
}
