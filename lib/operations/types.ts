// Plans: what an operation will do, exactly, and what it was decided from.
// A plan is plain JSON: stored for approval as is, rendered in Slack, and the
// executor runs exactly its steps.

import type { ApprovablePlan } from '../approvals/types.ts';
import type { Notice } from './failures.ts';
import type { PartitionAssignment } from './validate.ts';

export interface TopicPartition {
  topic: string;
  partition: number;
}

/**
 * What each kind of plan was made from: its validated request, as the planner
 * settled it. Each kind's module declares its own entry (module augmentation),
 * so adding a kind touches no file but its own and the OPERATION_KINDS line.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PlanParamsByKind {}
export type PlanKind = keyof PlanParamsByKind;

/** A kind with its params: narrowing on `kind` types `params`. */
export type PlanTarget = { [K in PlanKind]: { kind: K; params: PlanParamsByKind[K] } }[PlanKind];

/** How much data one replica holds, measured on its host or through the Admin API. */
export interface ReplicaData {
  brokerId: number;
  /** Next offset the replica would write (its log end offset); null when it could not be measured. */
  logEndOffset: number | null;
  /** High watermark from replication-offset-checkpoint: what was known committed when it last checkpointed. */
  checkpointedHighWatermark?: number | null;
  sizeBytes?: number | null;
  /** Where the figures came from, e.g. "host-probe", "kafka-log-dirs", "producer-snapshot". */
  source: string;
  error?: string;
  /**
   * Read on the host from the last segment's batch headers (kafka-dump-log.sh):
   * the transaction markers (control batches, at most the last 50) and the
   * producers whose data follows their last marker (at most 20). What a replica
   * that is down still tells about the transactions on its tail.
   */
  lastSegmentTransactions?: { markers: { producerId: number; offset: number }[]; open: { producerId: number; firstOffset: number }[] };
}

export interface LeaderCandidate {
  brokerId: number;
  live: boolean;
  inIsr: boolean;
  logEndOffset: number | null;
  checkpointedHighWatermark: number | null;
  sizeBytes: number | null;
  /**
   * Offsets (≈ messages) lost if this replica leads: `loss.atLeast` when the loss is known and counted in
   * messages; null when unknown (a replica that may hold acknowledged data was not measured) or only bytes are known.
   */
  estimatedMessagesLost: number | null;
  /** What this choice loses, and how sure that is. Absent on plans made before loss estimates. */
  loss?: LossEstimate;
  /** What a plain unclean election would pick today (first live replica in assignment order). */
  defaultChoice: boolean;
  /** Why it cannot be chosen, when it cannot. */
  ineligible?: string;
  /** Why its end could not be measured, when it could not. */
  unmeasured?: string;
}

/** Offsets (≈ messages) from log end offsets on the hosts; bytes from DescribeLogDirs sizes when no host can be read (e.g. Amazon MSK). */
export type LossUnit = 'messages' | 'bytes';

/** A replica that may have held acknowledged data that the plan cannot see. */
export interface UnseenHolder {
  brokerId: number;
  /** Why it may hold acknowledged data: it led last, it is in the last ISR, or the ISR is empty (with ELR the last member is not shown). */
  role: 'last-leader' | 'last-isr' | 'maybe-last-isr';
  /** unmeasured: no figure at all; shorter: measured, but shorter than what was written or acknowledged (wiped or truncated). */
  problem: 'unmeasured' | 'shorter';
  /** Why it could not be measured, as the measurement said. */
  detail?: string;
}

/** The figure beyond a replica's end that a loss bound rests on. */
export type LossBasis =
  | { kind: 'committed-offset'; groupId: string; value: number }
  | { kind: 'checkpointed-high-watermark' | 'replica-log-end' | 'replica-size'; brokerId: number; value: number };

/** What one leader choice loses. */
export interface LossEstimate {
  unit: LossUnit;
  /** Every replica that may hold acknowledged data was measured intact: `atLeast` is then the estimate itself. */
  known: boolean;
  /** Lost at least, in `unit` (the estimate when known); null when this replica's own end is unknown. */
  atLeast: number | null;
  /** This replica's end: its log end offset, or its size in bytes. */
  end: number | null;
  /** The highest figure beyond `end`, which `atLeast` is measured against; null when nothing known goes beyond it. */
  basis: LossBasis | null;
  /** Replicas that may hold acknowledged data beyond `end` and could not be measured, or lost theirs. */
  unseen: UnseenHolder[];
}

/** A consumer group whose committed offset lies beyond the new leader's end. */
export interface GroupBeyondEnd {
  groupId: string;
  committedOffset: number;
  state: string;
  /** Active members; null when the group could not be described. */
  members: number | null;
  /** false when the new end is unknown until the election: the group may or may not be past it. */
  certain: boolean;
  /** Committed at the new end by the plan's commit-offsets step (it has no active members). */
  committedByPlan: boolean;
  /** classic, or consumer (KIP-848's group.protocol=consumer); absent when not known. */
  groupType?: 'classic' | 'consumer' | 'unknown';
  /**
   * What Kafka answers an admin OffsetCommit (generation / member epoch -1, no member id) into the
   * group as it is now, measured on 4.4.0: accepted while it is Empty (either protocol); refused with
   * UNKNOWN_MEMBER_ID while it has members (classic: not Empty; consumer protocol: any member);
   * unknown when the group could not be described. Absent in plans made before it was said.
   */
  adminCommit?: 'accepted' | 'refused-members' | 'unknown';
}

/**
 * Each step action's JSON shape, by action: the steps shared by the
 * replica-moving kinds here, each kind's own declared in its folder (module
 * augmentation), beside the handler it registers (OperationKind.steps).
 */
export interface PlanStepsByAction {
  reassign: {
    /** AlterPartitionReassignments (KIP-455); with a throttle, this operation's throttles are recorded, then set, first. */
    action: 'reassign';
    description: string;
    partitions: PartitionAssignment[];
    throttleBytesPerSec: number | null;
  };
  'elect-leaders': {
    /** ElectLeaders (KIP-460) for exactly these partitions. */
    action: 'elect-leaders';
    description: string;
    electionType: 'unclean' | 'preferred';
    partitions: TopicPartition[];
  };
  'wait-reassignment': {
    /** Waits (across worker invocations) until none of the reassign step's partitions is still moving. */
    action: 'wait-reassignment';
    description: string;
    /** Index in `steps` of the reassign step whose partitions this waits for (not repeated: plans stay small). */
    reassignStep: number;
  };
  'remove-throttles': {
    /** Removes the replication throttles this operation set, and only those. */
    action: 'remove-throttles';
    description: string;
  };
  'verify-leaders': {
    action: 'verify-leaders';
    description: string;
    /** Each partition must end with this leader, in its ISR. */
    expected: { topic: string; partition: number; leader: number }[];
  };
  'verify-assignment': {
    action: 'verify-assignment';
    description: string;
    /** Index in `steps` of the reassign step whose target assignment must now be in place. */
    reassignStep: number;
  };
}

/**
 * One step, run by the worker through the step table (lib/operations/steps.ts).
 * Every step is idempotent, so a worker that dies mid-way is resumed at the
 * step it was on.
 */
export type PlanStep = PlanStepsByAction[keyof PlanStepsByAction];

/** What a restart step passes to the host's service script (from the planning-time probe). */
export interface BrokerHostPaths {
  unit: string;
  /** Directory of server.log; null when the probe could not tell. */
  logsDir: string | null;
  /** Data log dirs (clean-shutdown markers). */
  logDirs: string[];
}

/** Per broker, what a restart plan was decided from. */
export interface RestartBrokerInfo {
  brokerId: number;
  /** A KRaft controller (`brokerId` is its node id) and its place in the quorum; absent: a broker. */
  role?: 'controller';
  quorumRole?: 'leader' | 'follower' | 'observer';
  verdict: 'yes' | 'no';
  reasons: string[];
  /** The newest complete controlled shutdown in the broker's log, seconds; null when not in the log (or no host access). */
  lastShutdownSeconds: number | null;
  /** The unit's TimeoutStopSec in seconds (null: unknown, -1: infinity). */
  systemdStopTimeoutSeconds: number | null;
  /** __consumer_offsets partitions it leads (their groups move coordinator while it is down). */
  offsetsPartitionsLed: number[];
  /** Partition leaders it holds. */
  leaders: number;
  /** Its process at planning time; the restart is confirmed by a new one. */
  pid: number | null;
}

export type PlanStepAction = keyof PlanStepsByAction;

export interface PlanImpact {
  risk: 'low' | 'medium' | 'high';
  partitionsAffected: number;
  /** Replicas that must be copied to another broker. */
  replicasToCopy?: number;
  /** Drain: partitions the drained broker leads (their leadership moves). */
  leadersMoved?: number;
  /** Leader override: what each choice loses. */
  candidates?: LeaderCandidate[];
  /** Leader override: estimated offsets lost for the chosen replica; null when unknown or only known in bytes. */
  estimatedMessagesLost?: number | null;
  /** Leader override: what the chosen replica loses, and how sure that is. */
  loss?: LossEstimate;
  /** Leader override: consumer groups committed beyond the chosen replica's end (they reset unless committed at the new end). */
  groupsBeyondEnd?: GroupBeyondEnd[];
  /** Leader override: why committed offsets could not all be read; absent when every group answered. */
  groupsUnread?: string;
  /** Leader override: the partition's replicas and ISR now, and its replica list after the reorder. */
  assignment?: { before: number[]; isr: number[]; elr?: number[]; lastKnownElr?: number[]; after: number[]; reorder: boolean };
  /** Restart: each broker in restart order. */
  restarts?: RestartBrokerInfo[];
}

export interface PlanBase extends ApprovablePlan {
  id: string;
  /** One line: "make broker 3 lead orders-4". The rest of the prose is rendered from codes and figures (kinds/<kind>/ render). */
  title: string;
  createdAt: string;
  /** sha256 over `preconditions` (canonical JSON); recomputed from the live cluster before running. */
  fingerprint: string;
  /**
   * The cluster state the plan depends on, as fingerprinted; large states
   * (drains of big brokers) are replaced by a summary so the plan stays small.
   */
  preconditions: unknown;
  steps: PlanStep[];
  impact: PlanImpact;
  /** Coded: renderers (Slack, text) own the words. */
  warnings: Notice[];
  /** Plans are shown first; nothing changes until an approved execution runs with live: true. */
  dryRun: true;
}

/** One plan: its kind and params (a discriminated union on `kind`), and what it will do. */
export type Plan = PlanBase & PlanTarget;
/** A plan of one kind. */
export type PlanOf<K extends PlanKind> = PlanBase & { kind: K; params: PlanParamsByKind[K] };

/** A plan, or a coded refusal (render with refusalText in render-text.ts). */
export type PlanResult<P extends Plan = Plan> = { ok: true; plan: P } | { ok: false; refusal: Notice };
