// Compensation shared by the kinds that submit reassignments: stop only the
// reassignments we submitted (their target is exactly ours), once, and remove
// only the throttle entries our ledger recorded. Kind-specific compensation
// (a stopped broker) lives in its kind's module.

import type { KafkaAdmin, OngoingReassignment } from '../kafka/admin.ts';
import { KafkaErrorCode } from '../kafka/errors.ts';
import type { Notice } from './failures.ts';
import type { CompensationContext, CompensationResult } from './kind.ts';
import { stillMoving } from './reassignment-steps.ts';
import { removeThrottles } from './throttles.ts';
import type { Plan, TopicPartition } from './types.ts';
import type { PartitionAssignment } from './validate.ts';
import { errorMessage } from '../runtime/errors.ts';

/** Every partition a plan reassigns, with the target we submitted. */
export function submittedTargets(plan: Plan): PartitionAssignment[] {
  return plan.steps.flatMap((s) => (s.action === 'reassign' ? s.partitions : []));
}

export function reassignedPartitions(plan: Plan): TopicPartition[] {
  return submittedTargets(plan).map(({ topic, partition }) => ({ topic, partition }));
}

const key = (tp: TopicPartition) => `${tp.topic}\u0000${tp.partition}`;
const sameSet = (a: readonly number[], b: readonly number[]) => a.length === b.length && [...a].sort((x, y) => x - y).join(',') === [...b].sort((x, y) => x - y).join(',');

/**
 * AlterPartitionReassignments with null targets for this plan's partitions
 * still moving towards the target we submitted. A reassignment of the same
 * partition towards any other target was started by someone else (a later
 * run, a human with kafka-reassign-partitions.sh) and is left alone.
 * The listing's target is its replicas minus the ones being removed (KIP-455).
 */
export async function cancelOwnReassignments(
  admin: KafkaAdmin,
  plan: Plan,
  revertWaitMs = REVERT_WAIT_MS,
  revertPollMs = REVERT_POLL_MS,
): Promise<{ stopped: number; foreign: number; unreverted: string[] }> {
  const targets = new Map(submittedTargets(plan).map((t) => [key(t), t.replicas]));
  if (targets.size === 0) return { stopped: 0, foreign: 0, unreverted: [] };
  const moving = await stillMoving(admin, reassignedPartitions(plan));
  const ours = moving.filter((m) => {
    const target = m.replicas.filter((r) => !m.removingReplicas.includes(r));
    return sameSet(target, targets.get(key(m)) ?? []);
  });
  if (ours.length) {
    const results = await admin.alterPartitionReassignments(ours.map((m) => ({ topic: m.topic, partition: m.partition, replicas: null })));
    // NO_REASSIGNMENT_IN_PROGRESS: it finished between the listing and the cancel.
    const failed = results.filter((r) => r.errorCode !== KafkaErrorCode.NONE && r.errorCode !== KafkaErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
    if (failed.length) throw new Error(failed.slice(0, 3).map((r) => `${r.topic}-${r.partition}: ${r.error ?? r.errorCode}`).join('; '));
  }
  const unreverted = ours.length ? await waitForOriginalReplicas(admin, ours, revertWaitMs, revertPollMs) : [];
  return { stopped: ours.length, foreign: moving.length - ours.length, unreverted };
}

/** How long a cancel waits for the metadata to show the original replicas again. */
export const REVERT_WAIT_MS = 30_000;
/** How often that wait reads the metadata. */
export const REVERT_POLL_MS = 1_000;

/**
 * The controller accepts a cancel at once but reverts the replica set and
 * propagates it to the brokers' metadata a little later (seconds on a loaded
 * ZooKeeper-mode controller). The run says "kept their original replicas" only
 * once the metadata shows it; what has not reverted in time is named.
 */
async function waitForOriginalReplicas(admin: KafkaAdmin, cancelled: readonly OngoingReassignment[], waitMs: number, pollMs: number): Promise<string[]> {
  const original = new Map(cancelled.map((m) => [key(m), m.replicas.filter((r) => !m.addingReplicas.includes(r))]));
  const topics = [...new Set(cancelled.map((m) => m.topic))];
  const deadline = Date.now() + waitMs;
  for (;;) {
    const pending: string[] = [];
    try {
      const metadata = await admin.metadata(topics);
      const actual = new Map(metadata.topicMetadata.flatMap((t) => t.partitionMetadata.map((p) => [key({ topic: t.topic, partition: p.partitionId }), p.replicas] as const)));
      for (const [k, replicas] of original) {
        if (!sameSet(actual.get(k) ?? [], replicas)) pending.push(k.replace('\u0000', '-'));
      }
    } catch {
      pending.push(...[...original.keys()].map((k) => k.replace('\u0000', '-')));
    }
    if (pending.length === 0 || Date.now() >= deadline) return pending;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * What a replica-moving run owes at its end: a run that did not succeed stops
 * its own reassignments (once: after that, whatever moves is not ours); every
 * run removes its throttles.
 */
export async function reassignmentCompensation(ctx: CompensationContext): Promise<CompensationResult> {
  const notices: Notice[] = [];
  const done: Record<string, unknown> = {};
  let complete = true;
  // STALE before step 1: nothing of ours was submitted, and a reassignment with our target may be someone's own copy of the plan.
  if (ctx.status !== 'SUCCEEDED' && !(ctx.status === 'STALE' && ctx.run.cursor === 0) && !ctx.done.reassignmentsSettled) {
    try {
      const { stopped, foreign, unreverted } = await cancelOwnReassignments(reachable(ctx), ctx.plan);
      if (stopped > unreverted.length) notices.push({ code: 'reassignments-stopped', partitions: stopped - unreverted.length });
      if (unreverted.length > 0) notices.push({ code: 'reassignment-revert-pending', partitions: unreverted.slice(0, 5), total: unreverted.length, waitedSeconds: REVERT_WAIT_MS / 1000 });
      if (foreign > 0) notices.push({ code: 'foreign-reassignments-left', partitions: foreign });
      done.reassignmentsSettled = true;
    } catch (err) {
      complete = false;
      notices.push({ code: 'reassignment-cancel-failed', message: errorMessage(err) });
    }
  }
  if (!ctx.done.throttlesRemoved) {
    try {
      const ledger = await ctx.ledger.get();
      const removal = ledger ? await removeThrottles(reachable(ctx), ledger) : { complete: true, problems: [] };
      if (removal.complete) {
        if (ledger) notices.push({ code: 'throttles-removed' });
        done.throttlesRemoved = true;
      } else {
        complete = false;
        notices.push({ code: 'throttles-left', problems: removal.problems.slice(0, 3) });
      }
    } catch (err) {
      complete = false;
      notices.push({ code: 'throttles-left', problems: [errorMessage(err)] });
    }
  }
  return { notices, complete, done };
}

function reachable(ctx: CompensationContext): KafkaAdmin {
  if (!ctx.admin) throw new Error('the cluster could not be reached');
  return ctx.admin;
}

/** Kinds that change nothing that would need undoing (an election): nothing owed. */
export async function nothingOwed(): Promise<CompensationResult> {
  return { notices: [], complete: true, done: {} };
}
