// What a step handler receives and returns. Each kind registers the handlers
// of its own step actions (OperationKind.steps); the steps shared by the
// replica-moving kinds are in reassignment-steps.ts; steps.ts looks the
// action up in the table the registry builds.

import type { RunPhase, RunState } from '../approvals/types.ts';
import type { KafkaAdmin } from '../kafka/admin.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import type { RunCapabilities } from './capabilities.ts';
import type { ThrottleLedger } from './throttles.ts';
import type { Plan, PlanStep, PlanStepAction } from './types.ts';

/** How often a step watching for the cluster to answer (a new leader, an ISR) reads Metadata: one read costs milliseconds, a second of unwritable partition costs writes. */
export const WATCH_METADATA_MS = 50;

export type StepOutcome =
  /** phase: the milestone of an outage this step's end reached (a leader in Metadata, acks=all writes taken). */
  | { status: 'done'; detail: string; data?: Record<string, unknown>; phase?: RunPhase }
  /** lookAgainMs: how soon to look again (a Metadata read every 50 ms for an election); absent, the run's poll interval. */
  | { status: 'waiting'; progress: string; data?: Record<string, unknown>; lookAgainMs?: number };

export interface StepContext {
  plan: Plan;
  admin: KafkaAdmin;
  /** A fresh snapshot of the plan's topics. */
  snapshot(): Promise<ClusterSnapshot>;
  /** The run as it stands (progress of the current step from earlier polls, started times). */
  run: RunState;
  now(): number;
  /** The throttle ledger, stored beside the run so a later worker or the sweep can undo it. */
  ledger: { get(): Promise<ThrottleLedger | null>; put(ledger: ThrottleLedger): Promise<void> };
  /** What the plan's kind asked for (capabilities.ts), resolved for this tick. */
  capabilities?: RunCapabilities;
  /** An approver resumed a pause of this step: the code of what paused it; null otherwise. */
  resumedFrom?: string | null;
}

/** Runs one step of one action; idempotent (a resumed run repeats the step it was on). */
export type StepHandler<A extends PlanStepAction> = (step: Extract<PlanStep, { action: A }>, ctx: StepContext) => Promise<StepOutcome>;

/** The handlers a kind (or the shared reassignment steps) registers, by action. */
export type StepHandlers = { [A in PlanStepAction]?: StepHandler<A> };
