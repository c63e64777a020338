// Runs one plan step: the handler its action is registered with (the shared
// reassignment steps, or the kind that owns the action; registry.ts builds
// the table). A step either finishes (`done`), asks to be called again later
// (`waiting`, with progress), or throws an OperationError whose class
// (failures.ts) decides what the runner does.

import { stepHandlerFor } from './registry.ts';
import type { StepContext, StepOutcome } from './step-context.ts';
import type { PlanStep } from './types.ts';

export type { StepContext, StepHandler, StepHandlers, StepOutcome } from './step-context.ts';
export { VERIFY_LEADERS_TIMEOUT_MS, reassignedBy, stillMoving } from './reassignment-steps.ts';

export async function runStep(step: PlanStep, ctx: StepContext): Promise<StepOutcome> {
  return stepHandlerFor(step.action)(step as never, ctx);
}
