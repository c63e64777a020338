// What a run that ended owes, run through its kind's compensation: at the end
// of a tick (runner.ts) and again by the sweep while something is still owed.
// What earlier attempts finished is kept beside the run, so a repeat does
// only what is left. Nothing here names a kind.

import type { ApprovalRequest } from '../approvals/types.ts';
import type { ApprovalService } from '../approvals/service.ts';
import { resolveCapabilities } from './capabilities.ts';
import { classify } from './failures.ts';
import { LEAVE_STOPPED_REASON, type CompensationContext, type CompensationResult, type OperationIo, type OperationKind } from './kind.ts';
import { kindOf } from './registry.ts';
import { noticesText } from './render-text.ts';
import { LEDGER_NAME, releaseKeepingLiveThrottles } from './throttle-handover.ts';
import type { ThrottleLedger } from './throttles.ts';
import type { Plan, PlanKind } from './types.ts';

/** What the compensation has finished so far (so the sweep repeats only what is still owed). */
export const COMPENSATION_NAME = 'compensation';

export interface CompensationInput extends Omit<CompensationContext, 'done'> {
  approvals: ApprovalService<Plan>;
  requestId: string;
}

/** Runs the kind's compensation with what earlier attempts finished, and records what this one did. */
export async function compensate(kind: OperationKind<PlanKind>, c: CompensationInput): Promise<CompensationResult> {
  let done: Record<string, unknown> = {};
  try {
    done = (await c.approvals.getRunData<Record<string, unknown>>(c.requestId, COMPENSATION_NAME)) ?? {};
  } catch {
    // Unreadable: the compensation's own checks (target, pid, ledger) keep a repeat harmless.
  }
  let result: CompensationResult;
  try {
    result = await kind.compensate({ plan: c.plan, status: c.status, run: c.run, admin: c.admin, capabilities: c.capabilities, ledger: c.ledger, done, leaveStopped: c.leaveStopped });
  } catch (err) {
    result = { notices: [classify(err).notice], complete: false, done: {} };
  }
  if (Object.keys(result.done).length) await c.approvals.putRunData(c.requestId, COMPENSATION_NAME, { ...done, ...result.done }).catch(() => undefined);
  return result;
}

/**
 * The sweep's cleanup of a finished (or abandoned) run that still owes some:
 * the kind's compensation again, with what earlier attempts finished.
 */
export async function cleanupFinishedRun(approvals: ApprovalService<Plan>, io: OperationIo, request: ApprovalRequest<Plan>, options: { clear?: boolean } = {}): Promise<{ complete: boolean; text: string }> {
  // Unreachable, what needs the cluster stays owed; a stopped broker is still started.
  const admin = await io.openAdmin().catch(() => null);
  try {
    const plan = request.plan;
    const capabilities = await resolveCapabilities(kindOf(plan.kind).needs, io);
    // A release that raced a live run's start must not leave that run unthrottled (throttle-handover.ts).
    const result = await releaseKeepingLiveThrottles(approvals, admin, request, () => compensate(kindOf(plan.kind) as OperationKind<PlanKind>, {
      approvals,
      requestId: request.id,
      plan,
      status: request.outcome?.status ?? 'FAILED',
      run: request.run ?? { cursor: 0, checked: false, startedAt: 0, stepStartedAt: 0, invocations: 0 },
      admin,
      capabilities,
      ledger: { get: () => approvals.getRunData<ThrottleLedger>(request.id, LEDGER_NAME) },
      leaveStopped: request.cancelRequested?.reason === LEAVE_STOPPED_REASON,
    }));
    // The sweep clears it itself after saying so in the thread (clear: false), so a death in between is retried.
    if (result.complete && options.clear !== false) await approvals.clearCleanup(request.id);
    return { complete: result.complete, text: noticesText(result.notices, plan.kind) };
  } finally {
    await admin?.close().catch(() => undefined);
  }
}
