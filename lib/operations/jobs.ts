// The worker side of two-person-approved operations:
//   ops.plan     snapshot → measure → plan → ApprovalService.request → plan message with buttons
//   ops.refresh  re-render the plan message from DynamoDB, post the audit line in its thread
//   ops.execute  one tick of the run (lib/operations/runner.ts): claim or take over the lease,
//                steps from the recorded cursor, park and schedule the next tick while waiting
//   ops.sweep    every minute: resume stalled runs, re-enqueue approved ones, expire, clean up
// Exactly once is the approval store's job (conditional writes): a second
// tick for the same request loses the claim or the lease and posts nothing.
import { randomUUID } from 'node:crypto';
import type { KnownBlock } from '@slack/types';
import type { ApprovalRequest } from '../approvals/types.ts';
import { findCluster } from '../config/schema.ts';
import { runTick } from './runner.ts';
import type { Plan } from './types.ts';
import { button, context, renderFailure, section, type SlackMessage } from '../slack/blocks.ts';
import { SLACK_LIMITS, clip, escapeMrkdwn } from '../slack/limits.ts';
import { OPS_ACTIONS, renderPlanDetails, renderPlanMessage } from './render-slack.ts';
import type { Notice } from './failures.ts';
import { kindOf } from './registry.ts';
import { refusalText } from './render-text.ts';
import { finishActivity } from '../state/activity.ts';
import { recordIncidentEvent } from '../state/incident-log.ts';
import { newJob } from '../queue/job.ts';
import { describeOpsRequest, OPS_JOB_KINDS, opsExecuteJobSchema, opsPlanJobSchema, opsRefreshJobSchema, opsSweepJobSchema, type OpsExecuteJob, type OpsPlanJob, type OpsRefreshJob } from './requests.ts';
import { MESSAGE_REF_TTL_SECONDS, planMessageRef, refKey, refreshPlanMessage } from './plan-message.ts';
import { settleClosedRun, threadReporter } from './run-thread.ts';
import { tellChangeFeed, withChangeFeed } from './change-feed.ts';
import { sweepOperations } from './sweep.ts';
import { errorMessage } from '../runtime/errors.ts';
import { PermanentJobError, type JobContext, type JobHandler } from '../worker/worker.ts';
import { oncePoster, type OncePoster } from '../worker/post-once.ts';
import { line } from '../approvals/service.ts';

export { planMessageRef, type PlanMessageRef } from './plan-message.ts';
export { sweepOperations, APPROVED_START_GRACE_MS } from './sweep.ts';

/** What the operations feature needs beyond the worker's infrastructure; both absent = operations off. */
export type { OperationsContext, OperationsDeps } from './job-context.ts';
import type { OperationsContext, OperationsDeps } from './job-context.ts';

function needApprovals(ctx: OperationsContext) {
  if (!ctx.approvals) throw new PermanentJobError('approvals are not configured for the worker (APPROVALS_TABLE)');
  return ctx.approvals;
}

function needOperations(ctx: OperationsContext) {
  if (!ctx.operations) throw new PermanentJobError('operations are not available in this worker');
  return ctx.operations;
}

function refusedPlan(payload: OpsPlanJob, reason: string, refusal?: Notice): SlackMessage {
  const what = describeOpsRequest(payload.request);
  const blocks: KnownBlock[] = [section(`:no_entry: *No plan for: ${escapeMrkdwn(what)}* (asked by <@${payload.origin.userId}>)\n${escapeMrkdwn(clip(reason, 2500))}`)];
  // A changed request the kind would plan (a full drain → what can move) is one click away.
  const { kind, ...fields } = payload.request;
  const offer = refusal ? kindOf(kind).refusalOffer?.(fields, refusal) : null;
  if (offer) {
    const value = JSON.stringify({ cluster: payload.cluster, request: { ...offer.request, kind } });
    blocks.push({ type: 'actions', elements: [button({ text: offer.label, actionId: OPS_ACTIONS.plan, value })] });
  }
  return { text: clip(`No plan for ${what}: ${reason}`, SLACK_LIMITS.fallbackText), blocks };
}

/** The plan message and its reference, the timeline event, the digest line, the full lists ("…and N more"):
 * each once per request, so a retry (worker died, a post failed) completes what is missing, repeats none. */
async function postPlan(ctx: OperationsContext, once: OncePoster, request: ApprovalRequest<Plan>, where: { channel: string; thread_ts?: string }, origin: OpsPlanJob['origin'], cluster: string, message: string): Promise<void> {
  let ref = await planMessageRef(ctx.store, request.id);
  if (!ref) {
    const posted = await once.post('plan', { ...where, ...renderPlanMessage(request) });
    ref = { channel: posted.channel, ts: posted.ts, threadTs: origin.threadTs ?? posted.ts };
    await ctx.store.create(refKey(request.id), ref, MESSAGE_REF_TTL_SECONDS);
  }
  const thread = { channel: ref.channel, thread_ts: ref.threadTs };
  // The thread's postmortem timeline reads this plan's audit trail from here on.
  await once.once('timeline', () => recordIncidentEvent(ctx.store, { channel: thread.channel, threadTs: thread.thread_ts }, { type: 'plan', at: new Date(request.createdAt).toISOString(), requestId: request.id, cluster, kind: request.plan.kind, title: request.plan.title, requestedBy: origin.userId }, ctx.log, `${request.id}/plan`));
  await once.post('digest', { ...thread, text: `${message} · request \`${request.id}\``, blocks: [context(clip(`${message} · request \`${request.id}\` · plan digest \`${request.planDigest.slice(0, 16)}\``, SLACK_LIMITS.sectionText))] });
  for (const [i, m] of renderPlanDetails(request.plan).entries()) await once.post(`details-${i}`, { ...thread, ...m });
  ctx.log.info('operation plan posted for approval', { requestId: request.id, kind: request.plan.kind, fingerprint: request.plan.fingerprint });
}

/** The operations feature's job kinds, for the worker's registry (lib/root/worker.ts). */
export function operationsJobs(deps: OperationsDeps): JobHandler[] {
  const withDeps = (ctx: JobContext): OperationsContext => ({ ...ctx, ...deps });
  const plan: JobHandler<OpsPlanJob> = {
    kind: OPS_JOB_KINDS.plan,
    schema: opsPlanJobSchema,
    run: (payload, jobCtx) => planJob(payload, withDeps(jobCtx)),
  };

  const refresh: JobHandler<OpsRefreshJob> = {
    kind: OPS_JOB_KINDS.refresh,
    schema: opsRefreshJobSchema,
    async run(payload, jobCtx) {
      const ctx = withDeps(jobCtx);
      const approvals = needApprovals(ctx);
      const request = await approvals.get(payload.requestId);
      if (!request) throw new PermanentJobError(`no approval request ${payload.requestId}`);
      const ref = await planMessageRef(ctx.store, payload.requestId);
      // Every decision passes here (the second approval, an abandon): the feed finds what is new.
      await tellChangeFeed(ctx, request);
      await refreshPlanMessage(ctx, request, ref);
      if (payload.line && ref) await (await oncePoster(ctx, ctx.job.id)).post('audit-line', { channel: ref.channel, thread_ts: ref.threadTs, text: payload.line });
    },
  };

  const execute: JobHandler<OpsExecuteJob> = {
    kind: OPS_JOB_KINDS.execute,
    schema: opsExecuteJobSchema,
    run: (payload, jobCtx) => executeJob(payload, withDeps(jobCtx)),
  };

  const sweep: JobHandler<Record<string, unknown>> = {
    kind: OPS_JOB_KINDS.sweep,
    schema: opsSweepJobSchema,
    async run(_payload, jobCtx) {
      const ctx = withDeps(jobCtx);
      const summary = await sweepOperations(ctx, Date.now(), typeof _payload.after === 'string' ? _payload.after : undefined);
      ctx.log.info('operations sweep', summary);
    },
  };
  return [plan, refresh, execute, sweep];
}

/** Plans a request and posts it for two approvals (or says why not); a retry posts only what is missing. */
async function planJob(payload: OpsPlanJob, ctx: OperationsContext): Promise<void> {
  const { log, job } = ctx;
  const origin = payload.origin;
  const where = { channel: origin.channelId, ...(origin.threadTs ? { thread_ts: origin.threadTs } : {}) };
  try {
    const approvals = needApprovals(ctx);
    const operations = needOperations(ctx);
    const cluster = findCluster(ctx.config, payload.cluster);
    if (!cluster) throw new PermanentJobError(`cluster "${payload.cluster}" is not configured`);
    // The request's id is the proposal's (stable per run and proposal) or the job's: a retry of this
    // job or a step reported twice finds the request, and what was posted for it by purpose.
    const requestId = payload.requestId ?? job.id;
    const once = await oncePoster(ctx, `ops-plan:${requestId}`);
    let earlier = await approvals.get(requestId);
    if (earlier) {
      log.info('operation plan already requested (job retried); posting only what is missing', { requestId });
      // Asked again with the stored plan: the store completes what the dead attempt left (its audit record, its plan pieces).
      const again = await approvals.request(earlier.plan, earlier.requester, { id: requestId, ...(earlier.context ? { context: earlier.context } : {}) });
      if (again.ok) earlier = again.request;
      // The line the first attempt would have posted: the request's own "requested" event.
      const asked = earlier.events.find((e) => e.type === 'requested');
      await postPlan(ctx, once, earlier, where, origin, cluster.name, asked ? line(asked) : 'approval request recorded');
      return;
    }
    let planned;
    try {
      planned = await operations.plan(cluster, payload.request);
    } catch (err) {
      await once.post('failed', { ...where, ...renderFailure(`Planning ${describeOpsRequest(payload.request)}`, errorMessage(err), job.correlationId) });
      throw new PermanentJobError(errorMessage(err));
    }
    if (!planned.ok) {
      log.info('operation not planned', { code: planned.refusal.code });
      await once.post('refused', { ...where, ...refusedPlan(payload, refusalText(planned.refusal, payload.request.kind), planned.refusal) });
      return;
    }
    const requested = await approvals.request(planned.plan, origin.userId, {
      id: requestId,
      context: { cluster: cluster.name, channel: origin.channelId, correlationId: job.correlationId, ...(payload.proposedBy ? { proposedBy: payload.proposedBy } : {}) },
    });
    if (!requested.ok) {
      await once.post('refused', { ...where, ...refusedPlan(payload, requested.message) });
      return;
    }
    await postPlan(ctx, once, requested.request, where, origin, cluster.name, requested.message);
  } finally {
    await finishActivity(ctx.store, job.id, log);
  }
}

/** One tick of an approved run, on the cluster stored with its request; what the thread hears of a tick not run. */
async function executeJob(payload: OpsExecuteJob, ctx: OperationsContext): Promise<void> {
  const { log, job } = ctx;
  const approvals = needApprovals(ctx);
  const operations = needOperations(ctx);
  // The cluster is the one the plan was made and approved for, as stored with the request; never the message's.
  const stored = await approvals.get(payload.requestId);
  if (!stored) throw new PermanentJobError(`no approval request ${payload.requestId}`);
  const clusterName = stored.context?.cluster;
  if (!clusterName) throw new PermanentJobError(`request ${payload.requestId} has no cluster recorded`);
  if (payload.cluster && payload.cluster !== clusterName) log.warn('execute job names another cluster than its request; using the request\'s', { requestId: payload.requestId, job: payload.cluster, request: clusterName });
  const cluster = findCluster(ctx.config, clusterName);
  if (!cluster) throw new PermanentJobError(`cluster "${clusterName}" is not configured`);
  const ref = await planMessageRef(ctx.store, payload.requestId);
  // Unique per attempt: two workers handed the same job must not share a lease owner.
  const workerId = `worker:${randomUUID().slice(0, 8)}:${job.id}`.slice(0, 128);
  const remaining = ctx.remainingMs?.() ?? DEFAULT_TICK_BUDGET_MS;
  const deadline = Date.now() + remaining - TICK_MARGIN_MS;
  const reporter = withChangeFeed(await threadReporter(ctx, payload.requestId, ref), ctx);
  const result = await runTick({
    approvals,
    io: operations.io(cluster),
    requestId: payload.requestId,
    workerId,
    deadline,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    pollMs: ctx.config.operations.pollSeconds * 1000,
    scheduleNext: async (delayMs) => {
      if (!ctx.queue) throw new Error('no queue to schedule the next step on');
      await ctx.queue.enqueue(newJob(OPS_JOB_KINDS.execute, payload, job.correlationId, `ops-${payload.requestId}`), { delayMs });
    },
    report: reporter,
  });
  log.info('operation tick', { requestId: payload.requestId, result: result.kind, ...(result.kind === 'not-run' ? { code: result.code } : {}), ...(result.kind === 'finished' ? { status: result.status } : {}) });
  if (result.kind === 'not-run' && CLOSED_REFUSALS.has(result.code)) {
    // Quiet, unless the tick that closed the run died before its summary: then it is owed, once.
    const closed = await approvals.get(payload.requestId).catch(() => null);
    if (closed) await settleClosedRun(ctx, approvals, closed, reporter);
  } else if (result.kind === 'not-run' && !QUIET_REFUSALS.has(result.code)) {
    await reporter.say(`not-run-${result.code}`, { text: `:no_entry: Not run: ${clip(result.message, 1500)}` });
    const now = await approvals.get(payload.requestId).catch(() => null);
    if (now) await refreshPlanMessage(ctx, now, ref);
  }
}

/** A tick that was not run for these reasons has nothing to tell the thread: another tick has (or had) the run. */
const QUIET_REFUSALS = new Set(['already-claimed', 'already-executed', 'lease-lost', 'closed']);
/** Of those, the ones that say the run is over. */
const CLOSED_REFUSALS = new Set(['already-executed', 'closed']);
/** Without Lambda's clock (tests, CLI), a tick works this long before parking. */
const DEFAULT_TICK_BUDGET_MS = 10 * 60_000;
/** Stop this long before the invocation's end: time to save, park and schedule. */
const TICK_MARGIN_MS = 5_000;
