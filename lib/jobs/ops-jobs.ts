// The worker side of two-person-approved operations (issue 5):
//   ops.plan     snapshot → measure → plan → ApprovalService.request → plan message with buttons
//   ops.refresh  re-render the plan message from DynamoDB, post the audit line in its thread
//   ops.execute  runApprovedPlan: claim → fingerprint check → steps (each audited, then posted) → summary
// Exactly once is the approval store's job (conditional writes): a second
// execute job for the same request is refused at the claim and posts nothing.
import { randomUUID } from 'node:crypto';
import type { KnownBlock } from '@slack/types';
import type { ApprovalRequest } from '../approvals/types.ts';
import { findCluster } from '../config/schema.ts';
import type { Plan } from '../operations/types.ts';
import { button, context, renderFailure, section, type SlackMessage } from '../slack/blocks.ts';
import { SLACK_LIMITS, clip, escapeMrkdwn } from '../slack/limits.ts';
import { OPS_ACTIONS, renderPlanMessage, renderStep, renderSummary } from '../slack/ops-blocks.ts';
import { finishActivity, startActivity } from './activity.ts';
import { describeOpsRequest, OPS_JOB_KINDS, opsExecuteJobSchema, opsPlanJobSchema, opsRefreshJobSchema, type OpsPlanJob } from './ops-kinds.ts';
import { errorMessage } from './log.ts';
import type { StateStore } from './state-store.ts';
import { PermanentJobError, type JobContext, type JobRegistry } from './worker.ts';

/** Where a request's plan message and thread are (written once the message is posted). */
export interface PlanMessageRef {
  channel: string;
  ts: string;
  threadTs: string;
}
const MESSAGE_REF_TTL_SECONDS = 30 * 24 * 3600;
const refKey = (requestId: string) => `ops-msg:${requestId}`;

export async function planMessageRef(store: StateStore, requestId: string): Promise<PlanMessageRef | null> {
  return (await store.get<PlanMessageRef>(refKey(requestId)))?.value ?? null;
}

function needApprovals(ctx: JobContext) {
  if (!ctx.approvals) throw new PermanentJobError('approvals are not configured for the worker (APPROVALS_TABLE)');
  return ctx.approvals;
}

function needOperations(ctx: JobContext) {
  if (!ctx.operations) throw new PermanentJobError('operations are not available in this worker');
  return ctx.operations;
}

function refusedPlan(payload: OpsPlanJob, reason: string): SlackMessage {
  const what = describeOpsRequest(payload.request);
  const blocks: KnownBlock[] = [section(`:no_entry: *No plan for: ${escapeMrkdwn(what)}* (asked by <@${payload.origin.userId}>)\n${escapeMrkdwn(clip(reason, 2500))}`)];
  // A full drain that cannot keep every replication factor can still move what can move.
  if (payload.request.kind === 'drain-broker' && !payload.request.partial) {
    const value = JSON.stringify({ cluster: payload.cluster, request: { ...payload.request, partial: true } });
    blocks.push({ type: 'actions', elements: [button({ text: 'Drain what can move', actionId: OPS_ACTIONS.plan, value })] });
  }
  return { text: clip(`No plan for ${what}: ${reason}`, SLACK_LIMITS.fallbackText), blocks };
}

async function refreshPlanMessage(ctx: JobContext, request: ApprovalRequest<Plan>, ref: PlanMessageRef | null): Promise<void> {
  if (!ref) return;
  await ctx.slack.update({ channel: ref.channel, ts: ref.ts, ...renderPlanMessage(request) }).catch((e) => ctx.log.warn('could not update plan message', { error: errorMessage(e) }));
}

const auditLine = (e: { type: string; actor: string; message: string; at: number }) => `${new Date(e.at).toISOString().slice(11, 19)} ${e.type} by ${e.actor}: ${e.message}`;

export function registerOpsJobs(registry: JobRegistry): void {
  if (!registry.has(OPS_JOB_KINDS.plan)) {
    registry.register({
      kind: OPS_JOB_KINDS.plan,
      schema: opsPlanJobSchema,
      async run(payload, ctx) {
        const { slack, log, job } = ctx;
        const origin = payload.origin;
        const where = { channel: origin.channelId, ...(origin.threadTs ? { thread_ts: origin.threadTs } : {}) };
        try {
          const approvals = needApprovals(ctx);
          const operations = needOperations(ctx);
          const cluster = findCluster(ctx.config, payload.cluster);
          if (!cluster) throw new PermanentJobError(`cluster "${payload.cluster}" is not configured`);
          let planned;
          try {
            planned = await operations.plan(cluster, payload.request);
          } catch (err) {
            await slack.post({ ...where, ...renderFailure(`Planning ${describeOpsRequest(payload.request)}`, errorMessage(err), job.correlationId) });
            throw new PermanentJobError(errorMessage(err));
          }
          if (!planned.ok) {
            log.info('operation not planned', { reason: planned.reason });
            await slack.post({ ...where, ...refusedPlan(payload, planned.reason) });
            return;
          }
          const requested = await approvals.request(planned.plan, origin.userId, { context: { cluster: cluster.name, channel: origin.channelId, correlationId: job.correlationId } });
          if (!requested.ok) {
            await slack.post({ ...where, ...refusedPlan(payload, requested.message) });
            return;
          }
          const request = requested.request;
          const posted = await slack.post({ ...where, ...renderPlanMessage(request) });
          const ref: PlanMessageRef = { channel: posted.channel, ts: posted.ts, threadTs: origin.threadTs ?? posted.ts };
          await ctx.store.create(refKey(request.id), ref, MESSAGE_REF_TTL_SECONDS);
          await slack.post({ channel: ref.channel, thread_ts: ref.threadTs, text: `${requested.message} · request \`${request.id}\``, blocks: [context(clip(`${requested.message} · request \`${request.id}\` · plan digest \`${request.planDigest.slice(0, 16)}\``, SLACK_LIMITS.sectionText))] });
          log.info('operation plan posted for approval', { requestId: request.id, kind: request.plan.kind, fingerprint: request.plan.fingerprint });
        } finally {
          await finishActivity(ctx.store, job.id).catch((e) => log.warn('could not clear activity', { error: errorMessage(e) }));
        }
      },
    });
  }

  if (!registry.has(OPS_JOB_KINDS.refresh)) {
    registry.register({
      kind: OPS_JOB_KINDS.refresh,
      schema: opsRefreshJobSchema,
      async run(payload, ctx) {
        const approvals = needApprovals(ctx);
        const request = await approvals.get(payload.requestId);
        if (!request) throw new PermanentJobError(`no approval request ${payload.requestId}`);
        const ref = await planMessageRef(ctx.store, payload.requestId);
        await refreshPlanMessage(ctx, request, ref);
        if (payload.line && ref) await ctx.slack.post({ channel: ref.channel, thread_ts: ref.threadTs, text: payload.line });
      },
    });
  }

  if (!registry.has(OPS_JOB_KINDS.execute)) {
    registry.register({
      kind: OPS_JOB_KINDS.execute,
      schema: opsExecuteJobSchema,
      async run(payload, ctx) {
        const { slack, log, job } = ctx;
        const approvals = needApprovals(ctx);
        const operations = needOperations(ctx);
        const cluster = findCluster(ctx.config, payload.cluster);
        if (!cluster) throw new PermanentJobError(`cluster "${payload.cluster}" is not configured`);
        const before = await approvals.get(payload.requestId);
        if (!before) throw new PermanentJobError(`no approval request ${payload.requestId}`);
        const ref = await planMessageRef(ctx.store, payload.requestId);
        const say = async (m: SlackMessage | { text: string }) => {
          if (ref) await slack.post({ channel: ref.channel, thread_ts: ref.threadTs, ...m }).catch((e) => log.warn('could not post to the plan thread', { error: errorMessage(e) }));
        };
        // Unique per attempt: two workers handed the same job must not share a lease owner.
        const workerId = `worker:${randomUUID().slice(0, 8)}:${job.id}`;
        const started = Date.now();
        await startActivity(ctx.store, { id: job.id, kind: job.kind, title: clip(`running: ${before.plan.title}`, 120), correlationId: job.correlationId, startedAt: job.enqueuedAt, ...(ref ? { channelId: ref.channel, threadTs: ref.threadTs } : {}) });
        let progressTs: string | undefined;
        let lastProgress = 0;
        let shownExecuting = false;
        // The claim happened inside the run: show EXECUTING (and its lease) on the plan message at the first sign of life.
        const showExecuting = async () => {
          if (shownExecuting) return;
          shownExecuting = true;
          const now = await approvals.get(payload.requestId).catch(() => null);
          if (now) await refreshPlanMessage(ctx, now, ref);
        };
        try {
          const remaining = ctx.remainingMs?.();
          let result;
          try {
            result = await operations.run(cluster, approvals, payload.requestId, workerId, {
              onStep: async (step) => {
                await showExecuting();
                await say(renderStep(step));
              },
              onProgress: async (text) => {
                await showExecuting();
                // At most one edit every 5 s: reassignment polling is chatty.
                if (!ref || Date.now() - lastProgress < 5_000) return;
                lastProgress = Date.now();
                const m = { text: `:hourglass_flowing_sand: ${clip(text, 1000)}` };
                if (progressTs) await slack.update({ channel: ref.channel, ts: progressTs, ...m }).catch(() => {});
                else progressTs = (await slack.post({ channel: ref.channel, thread_ts: ref.threadTs, ...m }).catch(() => undefined))?.ts;
              },
              ...(remaining !== undefined ? { budgetMs: remaining - 30_000 } : {}),
            });
          } catch (err) {
            // Mid-run failure: the request stays EXECUTING with its lease, visibly; never re-run on its own.
            const now = await approvals.get(payload.requestId).catch(() => null);
            await say({ text: `:x: Execution stopped: ${clip(errorMessage(err), 1500)}. The request is ${now?.status ?? 'unknown'}${now?.lease ? ` (lease held by ${now.lease.owner} until ${new Date(now.lease.until).toISOString()})` : ''}; it will not be re-run automatically. Check the cluster before doing anything else.` });
            if (now) await refreshPlanMessage(ctx, now, ref);
            throw new PermanentJobError(errorMessage(err));
          }
          if (!result.ran) {
            log.info('operation not run', { code: result.refusal.code, message: result.refusal.message });
            // Another worker has (or had) it: stay quiet, the thread already shows that run.
            if (result.refusal.code !== 'already-claimed' && result.refusal.code !== 'already-executed') {
              await say({ text: `:no_entry: Not run: ${result.refusal.message}` });
            }
            if (result.refusal.request) await refreshPlanMessage(ctx, result.refusal.request, ref);
            return;
          }
          const after = (await approvals.get(payload.requestId)) ?? before;
          const o = result.outcome;
          if (o.status === 'STALE') {
            await say({ text: `:warning: *STALE*: the cluster changed since the plan was made (fingerprint \`${before.plan.fingerprint.slice(0, 16)}\` no longer matches the live cluster). Nothing ran. Request a new plan. ${clip(o.summary, 1000)}` });
          }
          await say(renderSummary(after, { status: o.status, summary: o.summary, steps: o.steps, audit: after.events.map(auditLine), durationMs: Date.now() - started }));
          await refreshPlanMessage(ctx, after, ref);
          log.info('operation finished', { requestId: payload.requestId, status: o.status, durationMs: Date.now() - started });
        } finally {
          await finishActivity(ctx.store, job.id).catch((e) => log.warn('could not clear activity', { error: errorMessage(e) }));
        }
      },
    });
  }
}
