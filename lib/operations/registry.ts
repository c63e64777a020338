// The operation kinds: one module each in kinds/, one line each here. The
// runner, the backend, the request schema, the Slack commands and the
// renderers iterate this table; none of them switches on a kind.
import type { OperationKind, OperationKinds } from './kind.ts';
import { abortTransaction } from './kinds/abort-transaction/index.ts';
import { drainBroker } from './kinds/drain-broker/index.ts';
import { leaderOverride } from './kinds/leader-override/index.ts';
import { preferredElection } from './kinds/preferred-election/index.ts';
import { raiseReplicationFactor } from './kinds/raise-replication-factor/index.ts';
import { reassign } from './kinds/reassign/index.ts';
import { restartBrokers } from './kinds/restart-brokers/index.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import type { PlanKind } from './types.ts';

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
