// Plans: what an operation will do, exactly, and what it was decided from.
// A plan is plain JSON: stored for approval as is, rendered in Slack, and the
// executor runs exactly its steps.

import type { ApprovablePlan } from '../approvals/types.ts';
import type { PartitionAssignment } from './validate.ts';

export const PLAN_KINDS = ['leader-override', 'drain-broker', 'raise-replication-factor', 'reassign', 'preferred-election'] as const;
export type PlanKind = (typeof PLAN_KINDS)[number];

export interface TopicPartition {
  topic: string;
  partition: number;
}

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
}

export interface LeaderCandidate {
  brokerId: number;
  live: boolean;
  inIsr: boolean;
  logEndOffset: number | null;
  checkpointedHighWatermark: number | null;
  sizeBytes: number | null;
  /** Offsets (≈ messages) lost if this replica leads: highest known log end offset − its own. null when unknown. */
  estimatedMessagesLost: number | null;
  /** What a plain unclean election would pick today (first live replica in assignment order). */
  defaultChoice: boolean;
  /** Why it cannot be chosen, when it cannot. */
  ineligible?: string;
}

/**
 * One step. Commands name a kafka CLI tool that runs on a broker host through
 * the Executor with fixed script templates: values are passed as validated
 * arguments, never spliced into shell text.
 */
export type PlanStep =
  | {
      action: 'reassign';
      description: string;
      tool: 'kafka-reassign-partitions.sh';
      args: string[];
      /** The reassignment JSON the script writes from the arguments. */
      input: { version: 1; partitions: PartitionAssignment[] };
      throttleBytesPerSec: number | null;
    }
  | {
      action: 'elect-leaders';
      description: string;
      tool: 'kafka-leader-election.sh';
      args: string[];
      electionType: 'unclean' | 'preferred';
      partitions: TopicPartition[];
    }
  | {
      action: 'wait-reassignment';
      description: string;
      tool: 'kafka-reassign-partitions.sh';
      args: string[];
      /** Index in `steps` of the reassign step whose partitions this waits for (not repeated: plans stay small). */
      reassignStep: number;
      /** --verify also removes the throttles once every partition finished. */
      removesThrottle: boolean;
    }
  | {
      action: 'verify-leaders';
      description: string;
      /** Each partition must end with this leader, in its ISR. */
      expected: { topic: string; partition: number; leader: number }[];
    }
  | {
      action: 'verify-assignment';
      description: string;
      /** Index in `steps` of the reassign step whose target assignment must now be in place. */
      reassignStep: number;
    };

export interface PlanImpact {
  summary: string;
  risk: 'low' | 'medium' | 'high';
  partitionsAffected: number;
  /** Replicas that must be copied to another broker. */
  replicasToCopy?: number;
  /** Leader override: what each choice loses. */
  candidates?: LeaderCandidate[];
  /** Leader override: estimated offsets lost for the chosen replica, null when unknown. */
  estimatedMessagesLost?: number | null;
}

export interface Plan extends ApprovablePlan {
  id: string;
  kind: PlanKind;
  /** One line: "make broker 3 lead orders-4". */
  title: string;
  /** A few sentences for humans: what, why, what it changes. */
  description: string;
  createdAt: string;
  /** The validated request the plan was made from. */
  params: Record<string, unknown>;
  /** sha256 over `preconditions` (canonical JSON); recomputed from the live cluster before running. */
  fingerprint: string;
  /**
   * The cluster state the plan depends on, as fingerprinted; large states
   * (drains of big brokers) are replaced by a summary so the plan stays small.
   */
  preconditions: unknown;
  steps: PlanStep[];
  impact: PlanImpact;
  warnings: string[];
  /** Plans are shown first; nothing changes until an approved execution runs with live: true. */
  dryRun: true;
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; reason: string };
