// The change feed (job-context.ts ChangeFeed) as the operations jobs call it:
// after a decision (the refresh job), and at a run's start, resume and finish
// (the thread reporter, wrapped). Its failures are logged and swallowed: a
// tool outside Slack never stops or fails an operation.
import type { ApprovalRequest } from '../approvals/types.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { OperationsContext } from './job-context.ts';
import type { ThreadReporter } from './run-thread.ts';
import type { Plan } from './types.ts';

export async function tellChangeFeed(ctx: OperationsContext, request: ApprovalRequest<Plan>): Promise<void> {
  if (!ctx.changeFeed) return;
  try {
    await ctx.changeFeed.saw(request, ctx);
  } catch (err) {
    ctx.log.warn('could not record the change for the change feed (the operation goes on)', { requestId: request.id, error: errorMessage(err) });
  }
}

/** The reporter, telling the feed when the run starts (or is resumed) and when it has finished. */
export function withChangeFeed(reporter: ThreadReporter, ctx: OperationsContext): ThreadReporter {
  if (!ctx.changeFeed) return reporter;
  return {
    ...reporter,
    async started(request) {
      await tellChangeFeed(ctx, request);
      await reporter.started?.(request);
    },
    async resumed(request) {
      await tellChangeFeed(ctx, request);
      await reporter.resumed?.(request);
    },
    async finished(request, outcome) {
      await tellChangeFeed(ctx, request);
      await reporter.finished(request, outcome);
    },
  };
}
