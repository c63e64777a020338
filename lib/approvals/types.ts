// The approval record as the state machine sees it. Times are epoch
// milliseconds; the store adds its own key and TTL attributes around it.

/** Where a request ends: nothing happens to it after these. */
const FINAL = ['SUCCEEDED', 'FAILED', 'REJECTED', 'EXPIRED', 'STALE', 'CANCELLED'] as const;

export const APPROVAL_STATUSES = ['REQUESTED', 'APPROVED', 'EXECUTING', ...FINAL] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** Still waiting for a decision: the only states that can expire, be rejected or cancelled. */
export const OPEN_STATUSES: ReadonlySet<ApprovalStatus> = new Set(['REQUESTED', 'APPROVED']);
export const FINAL_STATUSES: ReadonlySet<ApprovalStatus> = new Set(FINAL);

/** What the approval binds to. lib/operations' Plan satisfies it; the full plan is stored as approved. */
export interface ApprovablePlan {
  id: string;
  kind: string;
  /** One line for humans. */
  title: string;
  /** Preconditions: sha256 of the relevant cluster state when the plan was made. */
  fingerprint: string;
}

export interface Approval {
  user: string;
  at: number;
  /** 'button': a click on the posted plan. 'request' is only found on requests made before asking stopped counting as approving. */
  via: 'request' | 'button';
  /** Slack action_ts of the click, to recognise a retried click. */
  actionTs?: string;
}

export interface Lease {
  owner: string;
  claimedAt: number;
  until: number;
  /**
   * The run is waiting between two worker invocations (a delayed job will
   * resume it): any worker may take a parked lease, nobody is running.
   */
  parked?: boolean;
}

/**
 * Where a long execution stands between worker invocations. Steps are
 * idempotent, so a worker that died is resumed at `cursor`.
 */
export interface RunState {
  /** Index of the next plan step to run. */
  cursor: number;
  /** The live cluster was checked against the plan's fingerprint (done once, before step 1). */
  checked: boolean;
  startedAt: number;
  stepStartedAt: number;
  /** Worker invocations that worked on this run. */
  invocations: number;
  /** The latest progress of the current step (not audited: a long wait reports often). */
  progress?: { text: string; at: number; data?: Record<string, unknown> };
  /** Operation-specific state kept across invocations, e.g. the throttles this run set. */
  data?: Record<string, unknown>;
  /** A terminal run still owes cleanup (e.g. throttles a broker did not accept): the sweep retries it. */
  cleanupPending?: boolean;
}

export type AuditEventType =
  | 'requested'
  | 'approved'
  | 'rejected'
  | 'cancelled'
  | 'expired'
  | 'claimed'
  | 'step'
  | 'succeeded'
  | 'failed'
  | 'stale'
  | 'abandoned'
  | 'resumed'
  | 'cancel-requested'
  | 'resume-requested';

/** One line of the audit trail; `seq` equals the request version it produced. */
export interface AuditEvent {
  requestId: string;
  seq: number;
  at: number;
  type: AuditEventType;
  /** Slack user id or worker id. */
  actor: string;
  message: string;
  data?: Record<string, unknown>;
}

/** What an executor reports after each step (kept small: it is stored in the record). */
export interface StepReport {
  index: number;
  name: string;
  status: 'ok' | 'failed' | 'skipped' | 'dry-run';
  detail?: string;
  data?: Record<string, unknown>;
  /** When the step began (epoch ms); it ended when its audit event was written. */
  startedAt?: number;
  /** The milestone of an outage this step's end reached (lib/approvals/run-timing.ts). */
  phase?: RunPhase;
}

/** re-checked: the plan still fits the live cluster; elected: the new leader is in Metadata; writable: it takes acks=all writes. */
export type RunPhase = 're-checked' | 'elected' | 'writable';

export type FinalOutcome = 'SUCCEEDED' | 'FAILED' | 'STALE' | 'CANCELLED';

export interface ApprovalRequest<P extends ApprovablePlan = ApprovablePlan> {
  id: string;
  status: ApprovalStatus;
  /** +1 on every transition; the optimistic-concurrency token. */
  version: number;
  plan: P;
  /** sha256 of the canonical plan: what was approved is exactly what runs. */
  planDigest: string;
  requester: string;
  /**
   * People whose approval never counts, fixed at creation: the requester of
   * the run that proposed this plan (they asked for it; others decide).
   */
  excludedApprovers?: string[];
  requiredApprovals: number;
  createdAt: number;
  expiresAt: number;
  /** Distinct users, in the order they approved. */
  approvals: Approval[];
  /** Who rejected or cancelled, and why. */
  closedBy?: { user: string; at: number; reason?: string };
  lease?: Lease;
  outcome?: { status: FinalOutcome; summary: string; at: number };
  /** EXPIRED and its plan message says so: until then the sweep keeps finding it (a worker can die in between). */
  expiryShown?: boolean;
  /** Execution progress across worker invocations (EXECUTING and after). */
  run?: RunState;
  /** An approver asked a running operation to stop; the worker stops at its next check and cleans up. */
  cancelRequested?: { user: string; at: number; reason?: string };
  /** An approver resumed a paused run (it checks again what paused it); the latest press. */
  resumeRequested?: { user: string; at: number };
  /** Where the Slack layer posts progress: channel, thread ts, message ts... */
  context?: Record<string, string>;
  /** Audit trail, appended in the same conditional write as the transition it records. */
  events: AuditEvent[];
}

export type Action =
  | { type: 'approve'; user: string; actionTs?: string }
  | { type: 'reject'; user: string; reason?: string }
  | { type: 'cancel'; user: string; reason?: string }
  | { type: 'expire' }
  | { type: 'claim'; workerId: string; leaseMs: number }
  | { type: 'step'; workerId: string; leaseMs: number; step: StepReport; run?: RunState }
  | { type: 'finish'; workerId: string; outcome: FinalOutcome; summary: string; data?: Record<string, unknown>; run?: RunState }
  /** A worker takes over a run whose previous worker stopped reporting (lease expired): audited, then continues at its step. */
  | { type: 'resume'; workerId: string; leaseMs: number }
  /** Any one approver stops a running operation (the worker cancels what is in flight and removes its throttles). */
  | { type: 'request-cancel'; user: string; reason?: string }
  /** Any one approver resumes a paused run: it checks again what paused it. */
  | { type: 'request-resume'; user: string }
  /** A human closes a run whose worker died (lease expired): it becomes FAILED, never re-run. */
  | { type: 'abandon'; user: string; reason?: string };

export const REFUSAL_CODES = [
  'self-approval',
  'duplicate-approval',
  'unauthorized',
  'not-requester',
  'expired',
  'not-expired',
  'already-approved',
  'not-approved',
  'already-executed',
  'already-claimed',
  'lease-expired',
  'lease-active',
  'not-lease-owner',
  'not-executing',
  'quorum-lost',
  'closed',
  'policy-unsatisfiable',
  'not-found',
  'invalid-input',
  'contention',
  'plan-too-large',
  'plan-altered',
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

export interface Refusal {
  code: RefusalCode;
  message: string;
}

export type Decision<P extends ApprovablePlan = ApprovablePlan> =
  | { ok: true; request: ApprovalRequest<P>; event: AuditEvent }
  | {
      ok: false;
      refusal: Refusal;
      /** A refusal that still changes state: an action on an expired request moves it to EXPIRED. */
      transition?: { request: ApprovalRequest<P>; event: AuditEvent };
    };
