// What the planners of every kind share (pure, no I/O): lookups, the common
// part of a fingerprint, finishing a plan, and the reassignment helpers the
// replica-moving kinds use. Each kind's planner lives in kinds/<kind>/; its
// `preconditions` is the slice of cluster state the plan depends on. The plan
// carries its sha256; the runner recomputes it from the live cluster with the
// same function and refuses on any change.

import type { ClusterSnapshot, PartitionState, TopicState } from '../kafka/types.ts';
import { partitionLookup, tpName } from '../kafka/partitions.ts';
import { digestOf } from '../approvals/fingerprint.ts';
import type { Notice } from './failures.ts';
import type { PlanBase, PlanKind, PlanOf, PlanParamsByKind, PlanStep, TopicPartition } from './types.ts';
import { DEFAULT_THROTTLE_BYTES_PER_SEC, type PartitionAssignment, ThrottleBytesPerSec, describeIssues } from './validate.ts';
import type { z } from 'zod';

export interface ReassignmentOptions {
  throttleBytesPerSec?: number;
}

export const liveIds = (s: ClusterSnapshot) => s.brokers.map((b) => b.id).sort((a, b) => a - b);
export const byTp = (a: TopicPartition, b: TopicPartition) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition);

/** kafka-topics.sh --unavailable-partitions: no leader, or a leader that is not a live broker. */
export function isLeaderless(p: PartitionState, live: ReadonlySet<number>): boolean {
  return p.leader < 0 || !live.has(p.leader);
}

export function findPartition(s: ClusterSnapshot, topic: string, partition: number): { t: TopicState; p: PartitionState } | { refusal: Notice } {
  const t = s.topics.find((x) => x.name === topic);
  if (!t) return { refusal: { code: 'topic-not-found', topic } };
  const p = t.partitions.find((x) => x.partition === partition);
  if (!p) return { refusal: { code: 'partition-not-found', topic, partition, partitions: t.partitions.length } };
  return { t, p };
}

/** A request that does not pass its kind's schema. */
export function invalidRequest(error: z.ZodError): Notice {
  return { code: 'invalid-request', issues: describeIssues(error) };
}

// ---------------------------------------------------------------- preconditions

/**
 * What every kind's fingerprint starts with: the kind, Kafka's cluster id (a
 * plan checked against another cluster in the same state is STALE) and the
 * live brokers.
 */
export function basePreconditions(kind: PlanKind, s: ClusterSnapshot): Record<string, unknown> {
  return { kind, clusterId: s.clusterId, liveBrokers: liveIds(s) };
}

/** The replica lists of these partitions, sorted: what a reassignment was decided from. */
export function assignmentOf(s: ClusterSnapshot, tps: readonly TopicPartition[]) {
  const lookup = partitionLookup(s);
  return tps
    .map((tp) => {
      const p = lookup(tp.topic, tp.partition);
      return { topic: tp.topic, partition: tp.partition, replicas: p ? p.replicas : null };
    })
    .sort(byTp);
}

/** Above this the plan keeps a summary of the fingerprinted state, not the state itself. */
const MAX_STORED_PRECONDITIONS_CHARS = 16_000;

function summarizeState(state: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { summarized: true };
  for (const [k, v] of Object.entries(state)) out[k] = Array.isArray(v) && v.length > 20 ? `${v.length} entries` : v;
  return out;
}

/** A plan from its parts; `state` is the kind's preconditions, fingerprinted here. */
export function finishPlan<K extends PlanKind>(
  s: ClusterSnapshot,
  kind: K,
  params: PlanParamsByKind[K],
  state: Record<string, unknown>,
  rest: Pick<PlanBase, 'title' | 'steps' | 'impact' | 'warnings'>,
): PlanOf<K> {
  const fingerprint = digestOf(state);
  const preconditions = JSON.stringify(state).length <= MAX_STORED_PRECONDITIONS_CHARS ? state : summarizeState(state);
  return {
    id: `${kind}-${digestOf({ kind, params, fingerprint }).slice(0, 16)}`,
    kind,
    createdAt: s.takenAt,
    params,
    fingerprint,
    preconditions,
    dryRun: true,
    ...rest,
  } as PlanOf<K>;
}

// ---------------------------------------------------------------- reassignments

/** Replica counts per live broker: the load used to balance new replicas. */
export function replicaLoad(s: ClusterSnapshot): Map<number, number> {
  const load = new Map<number, number>(s.brokers.map((b) => [b.id, 0]));
  for (const t of s.topics) for (const p of t.partitions) for (const r of p.replicas) if (load.has(r)) load.set(r, load.get(r)! + 1);
  return load;
}

/** The least-loaded candidate not already holding the partition; ties → lower id. Updates the load. */
export function pickBroker(load: Map<number, number>, candidates: readonly number[], exclude: readonly number[]): number | null {
  let best: number | null = null;
  for (const b of candidates) {
    if (exclude.includes(b)) continue;
    if (best === null || load.get(b)! < load.get(best)! || (load.get(b) === load.get(best) && b < best)) best = b;
  }
  if (best !== null) load.set(best, load.get(best)! + 1);
  return best;
}

export const plural = (n: number, word: string, many = `${word}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;

/** Reassign (throttled), wait, remove the throttles, verify: the steps of every replica-moving kind. */
export function reassignmentSteps(moves: PartitionAssignment[], throttle: number, what: string): PlanStep[] {
  const n = plural(moves.length, 'partition');
  return [
    {
      action: 'reassign',
      description: `throttle replication to ${formatRate(throttle)} for the moving replicas, then start the reassignment of ${n} (${what})`,
      partitions: moves,
      throttleBytesPerSec: throttle,
    },
    { action: 'wait-reassignment', description: `wait until ${moves.length === 1 ? 'the partition has' : `all ${n} have`} finished copying (progress is posted to the thread)`, reassignStep: 0 },
    { action: 'remove-throttles', description: 'remove the replication throttles this operation set (and only those)' },
    { action: 'verify-assignment', description: `verify every partition has its new replica list`, reassignStep: 0 },
  ];
}

export function throttleOf(options: ReassignmentOptions): number | Notice {
  const t = options.throttleBytesPerSec ?? DEFAULT_THROTTLE_BYTES_PER_SEC;
  const parsed = ThrottleBytesPerSec.safeParse(t);
  return parsed.success ? parsed.data : { code: 'bad-throttle', issues: describeIssues(parsed.error) };
}

/** Partitions of these already being reassigned (Metadata's adding replicas). */
export function inProgress(s: ClusterSnapshot, tps: readonly TopicPartition[]): string[] {
  const busy: string[] = [];
  const lookup = partitionLookup(s);
  for (const tp of tps) {
    const p = lookup(tp.topic, tp.partition);
    if (p?.addingReplicas?.length) busy.push(tpName(tp));
  }
  return busy;
}

export function formatRate(bytesPerSec: number): string {
  return bytesPerSec >= 1024 * 1024 ? `${(bytesPerSec / 1024 / 1024).toFixed(0)} MiB/s` : `${(bytesPerSec / 1024).toFixed(0)} KiB/s`;
}
