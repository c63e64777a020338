// The operations sweep, every minute (lib/root/deployed-worker.ts schedules it):
// nothing approved is lost, nothing running is left unwatched, nothing
// expired looks open, nothing a run owed is forgotten. A sweep is a job too:
// what it writes is safe to repeat when its worker died, and a write that
// takes a request out of the sweep's view (cleanup cleared) comes after what
// must be said about it, so a retry still sees it and says it, once.
import { FINAL_STATUSES } from '../approvals/types.ts';
import { findCluster } from '../config/schema.ts';
import { newJob } from '../queue/job.ts';
import { errorMessage } from '../runtime/errors.ts';
import { oncePoster } from '../worker/post-once.ts';
import type { OperationsContext } from './job-context.ts';
import { planMessageRef, refreshPlanMessage } from './plan-message.ts';
import { OPS_JOB_KINDS, type OpsExecuteJob } from './requests.ts';
import { runScope } from './run-thread.ts';
import { tellChangeFeed } from './change-feed.ts';
import { cleanupFinishedRun } from './runner.ts';
import { PermanentJobError } from '../worker/worker.ts';

/** An APPROVED request that has not started within this is enqueued again by the sweep. */
export const APPROVED_START_GRACE_MS = 2 * 60_000;
/** Longer than SQS retries a plan job (visibility timeout × receives): a plan not posted by then never will be. */
const PLAN_POST_WINDOW_MS = 24 * 3600_000;

function needApprovals(ctx: OperationsContext) {
  if (!ctx.approvals) throw new PermanentJobError('approvals are not configured for the worker (APPROVALS_TABLE)');
  return ctx.approvals;
}

/**
 * Every minute: nothing approved is lost, nothing running is left unwatched,
 * nothing expired looks open, nothing a run owed is forgotten.
 *   APPROVED but not started within 2 minutes → its execution is enqueued again;
 *   EXECUTING whose lease ran out (worker died, or its next tick was lost) → a tick resumes it;
 *   open past its expiry → EXPIRED, and the plan message says so;
 *   finished but owing cleanup (throttles a broker refused) → removed now.
 * Exactly once still holds: every tick must win the claim or the lease.
 */
export async function sweepOperations(
  ctx: OperationsContext,
  now = Date.now(),
  after?: string,
): Promise<{ looked: number; expired: number; restarted: number; resumed: number; cleaned: number; failures: number; continued: boolean }> {
  const approvals = needApprovals(ctx);
  const counts = { looked: 0, expired: 0, restarted: 0, resumed: 0, cleaned: 0, failures: 0, continued: false };
  // Every page, however many requests are pending; when this invocation's time runs short, a
  // continuation job resumes right after the last request handled (the next minute's sweep starts over).
  let cursor = after;
  for (;;) {
    const page = await approvals.sweepPage(cursor);
    for (const { id, cursor: next } of page.entries) {
      if ((ctx.remainingMs?.() ?? Number.POSITIVE_INFINITY) < SWEEP_RESERVE_MS) {
        counts.continued = await continueSweep(ctx, cursor);
        return counts;
      }
      await sweepOne(ctx, approvals, id, now, counts);
      cursor = next;
    }
    if (!page.next) return counts;
    cursor = page.next;
  }
}

/** Time a sweep keeps in hand to hand over to its continuation. */
const SWEEP_RESERVE_MS = 15_000;

async function continueSweep(ctx: OperationsContext, after: string | undefined): Promise<boolean> {
  if (!ctx.queue || !after) {
    ctx.log.warn('sweep ran out of time; the next scheduled sweep starts over');
    return false;
  }
  await ctx.queue.enqueue(newJob(OPS_JOB_KINDS.sweep, { after }, ctx.job.correlationId));
  ctx.log.info('sweep ran out of time; a continuation resumes after the last request handled');
  return true;
}

async function sweepOne(
  ctx: OperationsContext,
  approvals: ReturnType<typeof needApprovals>,
  id: string,
  now: number,
  counts: { looked: number; expired: number; restarted: number; resumed: number; cleaned: number; failures: number },
): Promise<void> {
  counts.looked++;
  try {
    const before = await approvals.get(id);
    if (!before) return;
    const cluster = before.context?.cluster;
    const tick = async () => {
      if (!cluster || !ctx.queue) return;
      await ctx.queue.enqueue(newJob(OPS_JOB_KINDS.execute, { requestId: id, cluster } satisfies OpsExecuteJob, ctx.job.correlationId, `ops-${id}`));
    };
    if (before.status === 'EXPIRED') {
      counts.expired++;
      // In the sweep's view until the message says so: a worker dying in between leaves it to the next sweep.
      await approvals.completeAuditTrail(before);
      // An approved request that expired before it ran is an outcome too (the feed ignores the unapproved).
      await tellChangeFeed(ctx, before);
      const ref = await planMessageRef(ctx.store, id);
      // Out of view only once the message says EXPIRED, or when there is no message to edit after the
      // plan job's retries could have posted one (a plan that was never posted has no buttons to hide).
      if ((await refreshPlanMessage(ctx, before, ref)) || (!ref && now - before.createdAt > PLAN_POST_WINDOW_MS)) await approvals.markExpiryShown(id);
    } else if (before.status === 'APPROVED' && now - (before.events.at(-1)?.at ?? before.createdAt) > APPROVED_START_GRACE_MS) {
      counts.restarted++;
      ctx.log.warn('approved request had not started: enqueuing its execution again', { requestId: id });
      await tick();
    } else if (before.status === 'EXECUTING' && (before.lease?.until ?? 0) < now) {
      counts.resumed++;
      await tick();
    } else if (FINAL_STATUSES.has(before.status) && before.run?.cleanupPending && cluster) {
      const config = findCluster(ctx.config, cluster);
      const operations = ctx.operations;
      if (!config || !operations) return;
      // Not cleared yet: a worker that dies before the post below leaves the request in the sweep's view.
      const result = await cleanupFinishedRun(approvals, operations.io(config), before, { clear: false });
      if (result.complete) {
        counts.cleaned++;
        const ref = await planMessageRef(ctx.store, id);
        // Once per run: a retry after a death between the post and the clear finds it posted.
        if (ref) await (await oncePoster(ctx, runScope(id))).post('cleanup', { channel: ref.channel, thread_ts: ref.threadTs, text: `:broom: Cleanup finished${result.text ? `: ${result.text.replace(/^; /, '')}` : ''}.` });
        await approvals.clearCleanup(id);
      }
    }
  } catch (err) {
    counts.failures++;
    ctx.log.warn('sweep could not handle a request', { requestId: id, error: errorMessage(err) });
  }
}
