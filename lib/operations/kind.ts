// What an operation kind is: one module in kinds/, one line in OPERATION_KINDS
// (registry.ts). The runner, the backend, the request schema, the Slack
// commands and the renderers iterate the table; none of them names a kind.

import type { z } from 'zod';
import type { FinalOutcome, RunState } from '../approvals/types.ts';
import type { ClusterConfig } from '../config/schema.ts';
import type { KafkaAdmin } from '../kafka/admin.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import type { Notice } from './failures.ts';
import type { CapabilityName, Capabilities, RunCapabilities } from './capabilities.ts';
import type { StepHandlers } from './step-context.ts';
import type { ThrottleLedger } from './throttles.ts';
import type { Plan, PlanKind, PlanOf, PlanParamsByKind, PlanResult } from './types.ts';

/**
 * The cluster as planning and a run reach it. Only openAdmin and snapshot are
 * required (tests pass small fakes); the capabilities some kinds need are
 * declared by those kinds (capabilities.ts) and checked at the composition edge.
 */
export interface OperationIo extends Partial<Capabilities> {
  openAdmin(): Promise<KafkaAdmin>;
  snapshot(topics: string[] | null): Promise<ClusterSnapshot>;
  /** The cluster's configuration (throttle, service unit, host access); absent in tests that need none of it. */
  cluster?: ClusterConfig;
}

/** What a run's re-check reads with: its open admin, and the snapshot being read beside it. */
export interface LiveReads {
  admin: KafkaAdmin;
  snapshot(): Promise<ClusterSnapshot>;
}

/** Words typed after `/kafka <name>`, turned into request fields for the kind's schema (or why not). */
export interface KindCommand {
  name: string;
  usage: string;
  /** Help text; the kind's summary when absent. */
  summary?: string;
  /** Request fields (strings are fine: the schema parses digits) and the cluster word, if one was given. */
  parse(args: string[], isCluster: (word: string) => boolean): { fields: Record<string, unknown>; cluster?: string } | { error: string };
}

/** The common rule: a last word naming a configured cluster (not a number, not one of the command's own words) selects it. */
export function trailingCluster(args: string[], isCluster: (word: string) => boolean, reserved: readonly string[] = []): { rest: string[]; cluster?: string } {
  const last = args.at(-1);
  if (last !== undefined && !/^\d+$/.test(last) && !reserved.includes(last) && isCluster(last)) return { rest: args.slice(0, -1), cluster: last };
  return { rest: args };
}

/** The cancel reason of the 'leave-stopped' pause choice: the compensation then leaves a stopped broker stopped. */
export const LEAVE_STOPPED_REASON = 'leave the broker stopped';

/** What a run owes when it ends in any state other than SUCCEEDED (and, for some kinds, also then). */
export interface CompensationContext {
  plan: Plan;
  status: FinalOutcome;
  run: RunState;
  /** Null when the cluster could not be reached: what needs it stays owed (the sweep retries). */
  admin: KafkaAdmin | null;
  /** What the kind asked for (its `needs`), resolved: null members where the cluster cannot provide them. */
  capabilities: RunCapabilities;
  ledger: { get(): Promise<ThrottleLedger | null> };
  /** What earlier attempts of this compensation already finished (kept beside the run). */
  done: Record<string, unknown>;
  /** A human chose in the thread to leave a stopped broker stopped. */
  leaveStopped: boolean;
}

export interface CompensationResult {
  /** What was done and what is left, coded. */
  notices: Notice[];
  /** false: something is still owed; the sweep tries again every minute. */
  complete: boolean;
  /** Merged into `done` for the next attempt. */
  done: Record<string, unknown>;
}

export interface OperationKind<K extends PlanKind> {
  kind: K;
  /** One line for help texts: what the operation is for. */
  summary: string;
  /** The request's fields (without `kind`), the same rules from Slack text, a button's value or a queue message. */
  request: z.ZodObject;
  /** The slash commands that ask for it. */
  commands: readonly KindCommand[];
  /** The one line a request is known by ("drain broker 3"). */
  describeRequest(request: Record<string, unknown>): string;
  /**
   * Moves replicas or stops brokers: holds the cluster's operation lock while
   * it runs (another exclusive run waits), and a plan that reassigns never
   * starts beside another reassignment (checked before step 1).
   */
  exclusive: boolean;
  /** The topics a plan depends on (null: all): the same selection when planning and when re-checking. */
  topics(params: PlanParamsByKind[K]): string[] | null;
  /** I/O, then the pure planner: what the backend calls to plan a request. */
  plan(io: OperationIo, request: Record<string, unknown>): Promise<PlanResult>;
  /**
   * What the fingerprint needs beyond the snapshot, read again right before
   * running (e.g. each replica's size). It runs beside the snapshot's read:
   * await `live.snapshot()` only when the plan itself cannot say what to read.
   */
  measure?(io: OperationIo, plan: PlanOf<K>, live: LiveReads): Promise<unknown>;
  /** The fingerprinted state (pure): the planner and the run's check call the same function. */
  preconditions(params: PlanParamsByKind[K], snapshot: ClusterSnapshot, measured: unknown): Record<string, unknown>;
  /**
   * A run paused at this step checks the fingerprint again on Resume: true
   * where the run itself has changed nothing the fingerprint covers (a
   * restart paused at a broker's can-restart check, not at its stop).
   */
  recheckOnResume(plan: PlanOf<K>, cursor: number): boolean;
  /** What the run must do or undo when it ends (also run by the sweep until complete). */
  compensate(ctx: CompensationContext): Promise<CompensationResult>;
  /** A refused request that a changed request would get planned (a full drain → a partial one): offered as a button. */
  refusalOffer?(request: Record<string, unknown>, refusal: Notice): { label: string; request: Record<string, unknown> } | null;
  /** Choices a paused run of this kind offers beside Resume and Cancel. */
  pauseChoices?: readonly ('leave-stopped')[];
  /** The handlers of the step actions only this kind plans (the shared reassignment steps are registered once). */
  steps?: StepHandlers;
  /** Capabilities beyond the Kafka protocol this kind asks for (declared in capabilities.ts by the kind itself). */
  needs?: readonly CapabilityName[];
  render: KindRenderer<K>;
}

/** Prose for one kind: the plan's opening lines, its success line, and its own codes. */
export interface KindRenderer<K extends PlanKind> {
  /** At most three lines: what changes, who leads or what moves, what is kept and lost. */
  headline(plan: PlanOf<K>): string[];
  /** Sections after the steps (a per-replica table, the restart order): plain text, one fact per line. */
  sections?(plan: PlanOf<K>): PlanSection[];
  success(plan: PlanOf<K>): string;
  /** Text for this kind's own notice codes; undefined for codes it does not know. */
  notice(n: Notice): string | undefined;
}

export interface PlanSection {
  title: string;
  lines: string[];
}

/** The table's type: one entry per plan kind. */
export type OperationKinds = { [K in PlanKind]: OperationKind<K> };
