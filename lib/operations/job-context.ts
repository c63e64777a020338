// What the operations jobs (jobs.ts), the thread (run-thread.ts) and the sweep
// (sweep.ts) work with: the worker's job context plus the operations' deps.
import type { ApprovalService } from '../approvals/service.ts';
import type { JobContext } from '../worker/worker.ts';
import type { OperationsBackend } from './backend.ts';
import type { Plan } from './types.ts';

export interface OperationsDeps {
  /** Two-person approvals; operation jobs fail permanently without them. */
  approvals?: ApprovalService<Plan>;
  /** Plans and runs operations on a cluster (lib/operations/backend.ts). */
  operations?: OperationsBackend;
}

export type OperationsContext = JobContext & OperationsDeps;
