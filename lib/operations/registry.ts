// The operation kinds: one folder each in kinds/, one line each here. The
// runner, the backend, the request schema, the Slack commands and the
// renderers iterate this table; none of them switches on a kind. The step
// table is built from it: the shared reassignment steps plus each kind's own.
import type { OperationKind, OperationKinds } from './kind.ts';
import { abortTransaction } from './kinds/abort-transaction/index.ts';
import { REASSIGNMENT_STEPS } from './reassignment-steps.ts';
import type { StepHandler, StepHandlers } from './step-context.ts';
import { drainBroker } from './kinds/drain-broker/index.ts';
import { leaderOverride } from './kinds/leader-override/index.ts';
import { preferredElection } from './kinds/preferred-election/index.ts';
import { raiseReplicationFactor } from './kinds/raise-replication-factor/index.ts';
import { reassign } from './kinds/reassign/index.ts';
import { restartBrokers } from './kinds/restart-brokers/index.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import type { PlanKind, PlanStepAction } from './types.ts';

export const OPERATION_KINDS: OperationKinds = {
  'leader-override': leaderOverride,
  'drain-broker': drainBroker,
  'raise-replication-factor': raiseReplicationFactor,
  reassign,
  'preferred-election': preferredElection,
  'restart-brokers': restartBrokers,
  'abort-transaction': abortTransaction,
};

/** The kind of a plan or request, typed loosely: callers hold a Plan whose params match its kind. */
export function kindOf(kind: string): OperationKind<PlanKind> {
  const k = (OPERATION_KINDS as Record<string, OperationKind<PlanKind>>)[kind];
  if (!k) throw new Error(`unknown operation kind ${kind}`);
  return k;
}

export const ALL_KINDS: OperationKind<PlanKind>[] = Object.values(OPERATION_KINDS) as OperationKind<PlanKind>[];

/** The fingerprinted state of a plan (or a kind and params) against a snapshot: what the runner checks before step 1. */
export function preconditionsFor(target: { kind: string; params: unknown }, s: ClusterSnapshot, measured?: unknown): Record<string, unknown> {
  return kindOf(target.kind).preconditions(target.params as never, s, measured);
}

/**
 * The step table: each action with the one handler registered for it (the
 * shared steps, or the kind that owns it). Read from OPERATION_KINDS on each
 * call, so a kind added to the table (a test's toy) is found; an action
 * registered twice is an error.
 */
export function stepTable(): StepHandlers {
  const table: Record<string, unknown> = { ...REASSIGNMENT_STEPS };
  for (const k of Object.values(OPERATION_KINDS) as OperationKind<PlanKind>[]) {
    for (const [action, handler] of Object.entries(k.steps ?? {})) {
      if (action in table) throw new Error(`step action ${action} is registered twice (again by ${k.kind})`);
      table[action] = handler;
    }
  }
  return table as StepHandlers;
}

/** The handler of one step action. */
export function stepHandlerFor<A extends PlanStepAction>(action: A): StepHandler<A> {
  const handler = stepTable()[action];
  if (!handler) throw new Error(`no step handler is registered for ${action}`);
  return handler as StepHandler<A>;
}
