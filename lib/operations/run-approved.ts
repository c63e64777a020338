// The worker's side of an approved operation: claim it (exactly one worker
// wins), run the approved plan live with every step audited before the next,
// then record the outcome. The plan that runs is the one stored with the
// approval, never one rebuilt by the caller.

import type { ApprovalService, ServiceResult } from '../approvals/service.ts';
import type { StepReport } from '../approvals/types.ts';
import { type ExecuteDeps, type ExecuteOptions, type ExecutionOutcome, executePlan } from './execute.ts';
import type { Plan } from './types.ts';

export interface RunApprovedInput {
  approvals: ApprovalService<Plan>;
  requestId: string;
  workerId: string;
  /** Everything executePlan needs except onStep, which this wires to the audit trail. */
  deps: Omit<ExecuteDeps, 'onStep'> & { onStep?: (step: StepReport) => Promise<void> | void };
  options?: Omit<ExecuteOptions, 'live'>;
}

export type RunApprovedResult =
  | { ran: false; refusal: Extract<ServiceResult<Plan>, { ok: false }> }
  | { ran: true; outcome: ExecutionOutcome; finish: ServiceResult<Plan> };

export async function runApprovedPlan(input: RunApprovedInput): Promise<RunApprovedResult> {
  const { approvals, requestId, workerId } = input;
  const claim = await approvals.claimForExecution(requestId, workerId);
  if (!claim.ok) return { ran: false, refusal: claim };
  const outcome = await executePlan(
    claim.request.plan,
    {
      ...input.deps,
      onStep: async (step) => {
        const recorded = await approvals.recordStep(requestId, workerId, step);
        // No audit record, no next step: the lease may be gone or the table unreachable.
        if (!recorded.ok) throw new Error(`audit of step ${step.index} failed: ${recorded.message}`);
        await input.deps.onStep?.(step);
      },
      onProgress: async (text) => {
        await approvals.heartbeat(requestId, workerId);
        await input.deps.onProgress?.(text);
      },
    },
    { ...input.options, live: true },
  );
  const status = outcome.status === 'SUCCEEDED' ? 'SUCCEEDED' : outcome.status === 'STALE' ? 'STALE' : 'FAILED';
  const finish = await approvals.finish(requestId, workerId, status, outcome.summary, { steps: outcome.steps.length });
  return { ran: true, outcome, finish };
}
