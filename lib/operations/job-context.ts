// What the operations jobs (jobs.ts), the thread (run-thread.ts) and the sweep
// (sweep.ts) work with: the worker's job context plus the operations' deps.
import type { ApprovalService } from '../approvals/service.ts';
import type { ApprovalRequest } from '../approvals/types.ts';
import type { JobContext } from '../worker/worker.ts';
import type { OperationsBackend } from './backend.ts';
import type { Plan } from './types.ts';

/**
 * A record of approved operations kept outside Slack (PagerDuty's change
 * events, lib/pagerduty/). It is shown the request after every decision and
 * at each tick's start and end, finds for itself what is new (once per
 * request and moment), and only queues: it must never wait on the tool it
 * feeds. Whatever it throws is logged, never fails a run (change-feed.ts).
 */
export interface ChangeFeed {
  saw(request: ApprovalRequest<Plan>, ctx: JobContext): Promise<void>;
}

export interface OperationsDeps {
  /** Two-person approvals; operation jobs fail permanently without them. */
  approvals?: ApprovalService<Plan>;
  /** Plans and runs operations on a cluster (lib/operations/backend.ts). */
  operations?: OperationsBackend;
  /** Where approvals and outcomes are recorded besides the thread; absent: nowhere. */
  changeFeed?: ChangeFeed;
}

export type OperationsContext = JobContext & OperationsDeps;
