// Pure planners: (snapshot, request) → Plan or a refusal with a reason. No I/O.
// Each kind has a `preconditions` function: the slice of cluster state the
// plan depends on. The plan carries its sha256; the executor recomputes it
// from the live cluster with the same function and refuses on any change.

import type { ClusterSnapshot, PartitionState, TopicState } from '../kafka/types.ts';
import { digestOf } from '../approvals/fingerprint.ts';
import type { PlanBase, PlanKind, PlanOf, PlanParamsByKind, PlanResult, PlanStep, PlanTarget, TopicPartition } from './types.ts';
import {
  DEFAULT_THROTTLE_BYTES_PER_SEC,
  DrainRequest,
  ExplicitReassignmentRequest,
  type PartitionAssignment,
  PreferredElectionRequest,
  RaiseReplicationFactorRequest,
  ThrottleBytesPerSec,
  describeIssues,
} from './validate.ts';

export interface ReassignmentOptions {
  throttleBytesPerSec?: number;
}

export const tpName = (tp: TopicPartition) => `${tp.topic}-${tp.partition}`;
export const liveIds = (s: ClusterSnapshot) => s.brokers.map((b) => b.id).sort((a, b) => a - b);
const byTp = (a: TopicPartition, b: TopicPartition) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition);

/** kafka-topics.sh --unavailable-partitions: no leader, or a leader that is not a live broker. */
export function isLeaderless(p: PartitionState, live: ReadonlySet<number>): boolean {
  return p.leader < 0 || !live.has(p.leader);
}

/** Partition lookup in O(1) per call: planners over 200k partitions must not scan topics per partition. */
function partitionLookup(s: ClusterSnapshot): (topic: string, partition: number) => PartitionState | undefined {
  const topics = new Map(s.topics.map((t) => [t.name, t]));
  return (topic, partition) => {
    const t = topics.get(topic);
    if (!t) return undefined;
    const direct = t.partitions[partition];
    return direct?.partition === partition ? direct : t.partitions.find((x) => x.partition === partition);
  };
}

export function findPartition(s: ClusterSnapshot, topic: string, partition: number): { t: TopicState; p: PartitionState } | string {
  const t = s.topics.find((x) => x.name === topic);
  if (!t) return `topic ${topic} not found in the cluster snapshot`;
  const p = t.partitions.find((x) => x.partition === partition);
  if (!p) return `topic ${topic} has no partition ${partition} (it has ${t.partitions.length})`;
  return { t, p };
}

// ---------------------------------------------------------------- preconditions

/** The state each plan kind depends on; params are the plan's validated request. */
export function preconditionsFor(target: PlanTarget, s: ClusterSnapshot): unknown {
  const live = liveIds(s);
  const lookup = partitionLookup(s);
  const assignment = (tps: TopicPartition[]) =>
    tps
      .map((tp) => {
        const p = lookup(tp.topic, tp.partition);
        return { topic: tp.topic, partition: tp.partition, replicas: p ? p.replicas : null };
      })
      .sort(byTp);
  const kind = target.kind;
  switch (target.kind) {
    case 'leader-override': {
      const { topic, partition } = target.params;
      const p = s.topics.find((t) => t.name === topic)?.partitions.find((x) => x.partition === partition);
      return {
        kind,
        topic,
        partition,
        leader: p ? p.leader : null,
        replicas: p ? p.replicas : null,
        isr: p ? [...p.isr].sort((a, b) => a - b) : null,
        liveBrokers: live,
      };
    }
    case 'drain-broker': {
      const { broker } = target.params;
      const affected: TopicPartition[] = [];
      for (const t of s.topics) for (const p of t.partitions) if (p.replicas.includes(broker)) affected.push({ topic: t.name, partition: p.partition });
      return { kind, broker, partitions: assignment(affected), liveBrokers: live };
    }
    case 'raise-replication-factor': {
      const { topic } = target.params;
      const t = s.topics.find((x) => x.name === topic);
      return {
        kind,
        topic,
        partitions: t ? assignment(t.partitions.map((p) => ({ topic, partition: p.partition }))) : null,
        liveBrokers: live,
      };
    }
    case 'reassign': {
      return { kind, partitions: assignment(target.params.partitions), liveBrokers: live };
    }
    case 'restart-brokers': {
      // Leaders and ISRs move all the time; what the order was decided from is who is live and where replicas are.
      const hosted = target.params.brokers.map((b) => {
        let replicas = 0;
        for (const t of s.topics) for (const p of t.partitions) if (p.replicas.includes(b)) replicas++;
        return { broker: b, replicas };
      });
      return { kind, brokers: target.params.brokers, hosted, liveBrokers: live };
    }
    case 'preferred-election': {
      return {
        kind,
        partitions: target.params.partitions
          .map((tp) => {
            const p = lookup(tp.topic, tp.partition);
            return { ...tp, replicas: p?.replicas ?? null, leader: p?.leader ?? null, isr: p ? [...p.isr].sort((a, b) => a - b) : null };
          })
          .sort(byTp),
        liveBrokers: live,
      };
    }
  }
}

/** Above this the plan keeps a summary of the fingerprinted state, not the state itself. */
const MAX_STORED_PRECONDITIONS_CHARS = 16_000;

function summarizeState(state: unknown): unknown {
  const out: Record<string, unknown> = { summarized: true };
  for (const [k, v] of Object.entries(state as Record<string, unknown>)) out[k] = Array.isArray(v) && v.length > 20 ? `${v.length} entries` : v;
  return out;
}

export function finishPlan<K extends PlanKind>(
  s: ClusterSnapshot,
  kind: K,
  params: PlanParamsByKind[K],
  rest: Pick<PlanBase, 'title' | 'description' | 'steps' | 'impact' | 'warnings'>,
): PlanOf<K> {
  const state = preconditionsFor({ kind, params } as PlanTarget, s);
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
  };
}

// Leader override lives in leader-override.ts (its own inputs: replica data and consumer offsets).
export { planLeaderOverride } from './leader-override.ts';

// ---------------------------------------------------------------- reassignments

/** Replica counts per live broker: the load used to balance new replicas. */
function replicaLoad(s: ClusterSnapshot): Map<number, number> {
  const load = new Map<number, number>(s.brokers.map((b) => [b.id, 0]));
  for (const t of s.topics) for (const p of t.partitions) for (const r of p.replicas) if (load.has(r)) load.set(r, load.get(r)! + 1);
  return load;
}

/** The least-loaded candidate not already holding the partition; ties → lower id. Updates the load. */
function pickBroker(load: Map<number, number>, candidates: readonly number[], exclude: readonly number[]): number | null {
  let best: number | null = null;
  for (const b of candidates) {
    if (exclude.includes(b)) continue;
    if (best === null || load.get(b)! < load.get(best)! || (load.get(b) === load.get(best) && b < best)) best = b;
  }
  if (best !== null) load.set(best, load.get(best)! + 1);
  return best;
}

function reassignmentSteps(moves: PartitionAssignment[], throttle: number, what: string): PlanStep[] {
  return [
    {
      action: 'reassign',
      description: `throttle replication to ${formatRate(throttle)} for the moving replicas, then start the reassignment of ${moves.length} partition(s) (${what})`,
      partitions: moves,
      throttleBytesPerSec: throttle,
    },
    {
      action: 'wait-reassignment',
      description: `wait until all ${moves.length} partition(s) finished copying (progress is posted to the thread)`,
      reassignStep: 0,
    },
    { action: 'remove-throttles', description: 'remove the replication throttles this operation set (and only those)' },
    {
      action: 'verify-assignment',
      description: `verify every partition has its new replica list`,
      reassignStep: 0,
    },
  ];
}

function throttleOf(options: ReassignmentOptions): number | string {
  const t = options.throttleBytesPerSec ?? DEFAULT_THROTTLE_BYTES_PER_SEC;
  const parsed = ThrottleBytesPerSec.safeParse(t);
  return parsed.success ? parsed.data : `throttle: ${describeIssues(parsed.error)}`;
}

function inProgress(s: ClusterSnapshot, tps: TopicPartition[]): string[] {
  const busy: string[] = [];
  const lookup = partitionLookup(s);
  for (const tp of tps) {
    const p = lookup(tp.topic, tp.partition);
    if (p?.addingReplicas?.length) busy.push(tpName(tp));
  }
  return busy;
}

/** Move every replica off a broker (before stopping it), balanced over the other live brokers. */
export function planDrain(snapshot: ClusterSnapshot, request: unknown, options: ReassignmentOptions = {}): PlanResult {
  const parsed = DrainRequest.safeParse(request);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error) };
  const { broker, partial } = parsed.data;
  const throttle = throttleOf(options);
  if (typeof throttle === 'string') return { ok: false, reason: throttle };
  const live = liveIds(snapshot);
  const liveSet = new Set(live);
  const others = live.filter((b) => b !== broker);
  if (others.length === 0) return { ok: false, reason: `the cluster lacks brokers: no live broker other than ${broker}` };

  const affected: { topic: string; p: PartitionState }[] = [];
  for (const t of snapshot.topics) for (const p of t.partitions) if (p.replicas.includes(broker)) affected.push({ topic: t.name, p });
  affected.sort((a, b) => byTp({ topic: a.topic, partition: a.p.partition }, { topic: b.topic, partition: b.p.partition }));
  if (affected.length === 0) return { ok: false, reason: `broker ${broker} holds no replicas: nothing to drain` };

  // A partition keeps its replication factor only if some live broker outside its replica list is free.
  const noRoom = affected.filter((a) => !others.some((b) => !a.p.replicas.includes(b)));
  if (noRoom.length > 0 && !partial) {
    const ex = noRoom[0]!;
    return {
      ok: false,
      reason:
        `the cluster lacks brokers: ${noRoom.length} partition(s) (e.g. ${ex.topic}-${ex.p.partition}, replicas ${ex.p.replicas.join(',')}) ` +
        `already have a replica on every other live broker (${others.join(', ')}), so broker ${broker} cannot be emptied without lowering ` +
        `their replication factor. A partial drain moves the ${affected.length - noRoom.length} that can move and leaves these online but under-replicated while broker ${broker} is down.`,
    };
  }
  const stuck = new Set(noRoom);
  const movable = affected.filter((a) => !stuck.has(a));
  if (movable.length === 0) {
    return { ok: false, reason: `none of broker ${broker}'s ${affected.length} partition(s) can move: every one already has a replica on every other live broker` };
  }
  const busy = inProgress(snapshot, movable.map((a) => ({ topic: a.topic, partition: a.p.partition })));
  if (busy.length) return { ok: false, reason: `a reassignment is already running for ${busy.slice(0, 5).join(', ')}${busy.length > 5 ? '…' : ''}` };

  const load = replicaLoad(snapshot);
  load.delete(broker);
  const moves: PartitionAssignment[] = [];
  const cannotCopy: string[] = [];
  for (const { topic, p } of movable) {
    const kept = p.replicas.filter((r) => r !== broker);
    const target = pickBroker(load, others, kept)!;
    // The new replica goes last: it must copy the data before it can lead, so the next replica in line becomes preferred.
    moves.push({ topic, partition: p.partition, replicas: [...kept, target] });
    if (isLeaderless(p, liveSet)) cannotCopy.push(`${topic}-${p.partition}`);
  }

  const warnings: string[] = [];
  if (!liveSet.has(broker)) warnings.push(`broker ${broker} is not live: partitions whose only in-sync copy was there cannot finish moving`);
  if (cannotCopy.length) {
    warnings.push(`${cannotCopy.length} partition(s) have no leader, so nothing can copy them until they do: ${cannotCopy.slice(0, 5).join(', ')}`);
  }
  const stayingAtRisk = noRoom.filter((a) => a.p.isr.filter((r) => r !== broker).length === 0).map((a) => `${a.topic}-${a.p.partition}`);
  if (noRoom.length) {
    warnings.push(
      `${noRoom.length} partition(s) stay on broker ${broker} (no free broker): under-replicated but online while it is down` +
        (stayingAtRisk.length ? `, except ${stayingAtRisk.slice(0, 5).join(', ')}: broker ${broker} is their only in-sync replica, they go OFFLINE if it stops` : ''),
    );
  }
  const rf1 = movable.filter((a) => a.p.replicas.length === 1).length;
  const leaders = movable.filter((a) => a.p.leader === broker).length;
  return {
    ok: true,
    plan: finishPlan(snapshot, 'drain-broker', { broker, partial, throttleBytesPerSec: throttle }, {
      title: `drain broker ${broker}: move ${moves.length} replica(s) to brokers ${others.join(', ')}` + (noRoom.length ? ` (${noRoom.length} stay: no free broker)` : ''),
      description:
        `Moves ${noRoom.length ? 'every replica that can keep its replication factor' : 'every replica'} off broker ${broker} ` +
        `(${moves.length} partition(s), ${leaders} led by it, ${rf1} with replication factor 1) so it can be stopped without taking any partition offline. ` +
        `Replication factors stay the same; each new replica goes to the least-loaded live broker that does not hold the partition yet. ` +
        `Producers and consumers keep working; leaders move when each copy is in sync.`,
      steps: reassignmentSteps(moves, throttle, `off broker ${broker}`),
      impact: {
        summary:
          `${moves.length} replica(s) copied to other brokers at up to ${formatRate(throttle)}; ` +
          (noRoom.length ? `${noRoom.length} stay on broker ${broker}` : `broker ${broker} ends with no replicas`),
        risk: 'medium',
        partitionsAffected: moves.length,
        replicasToCopy: moves.length,
      },
      warnings,
    }),
  };
}

/** Raise a topic's replication factor (e.g. 1 → 3), new replicas on the least-loaded live brokers. */
export function planRaiseReplicationFactor(snapshot: ClusterSnapshot, request: unknown, options: ReassignmentOptions = {}): PlanResult {
  const parsed = RaiseReplicationFactorRequest.safeParse(request);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error) };
  const { topic, replicationFactor: n } = parsed.data;
  const throttle = throttleOf(options);
  if (typeof throttle === 'string') return { ok: false, reason: throttle };
  const t = snapshot.topics.find((x) => x.name === topic);
  if (!t) return { ok: false, reason: `topic ${topic} not found in the cluster snapshot` };
  const live = liveIds(snapshot);
  if (live.length < n) return { ok: false, reason: `replication factor ${n} needs ${n} live brokers; the cluster has ${live.length}` };
  const current = Math.max(...t.partitions.map((p) => p.replicas.length));
  if (t.partitions.every((p) => p.replicas.length >= n)) {
    return { ok: false, reason: `${topic} already has replication factor ${current} (≥ ${n}); lowering it is not this operation` };
  }
  const busy = inProgress(snapshot, t.partitions.map((p) => ({ topic, partition: p.partition })));
  if (busy.length) return { ok: false, reason: `a reassignment is already running for ${busy.slice(0, 5).join(', ')}` };

  const load = replicaLoad(snapshot);
  const moves: PartitionAssignment[] = [];
  const leaderless: string[] = [];
  for (const p of [...t.partitions].sort((a, b) => a.partition - b.partition)) {
    if (p.replicas.length >= n) continue;
    const replicas = [...p.replicas];
    while (replicas.length < n) replicas.push(pickBroker(load, live, replicas)!);
    moves.push({ topic, partition: p.partition, replicas });
    if (isLeaderless(p, new Set(live))) leaderless.push(`${topic}-${p.partition}`);
  }
  const warnings = leaderless.length
    ? [`${leaderless.length} partition(s) have no leader and cannot be copied until they do: ${leaderless.slice(0, 5).join(', ')}`]
    : [];
  const added = moves.reduce((sum, m) => sum + m.replicas.length, 0) - moves.reduce((sum, m) => sum + (t.partitions.find((p) => p.partition === m.partition)?.replicas.length ?? 0), 0);
  return {
    ok: true,
    plan: finishPlan(snapshot, 'raise-replication-factor', { topic, replicationFactor: n, throttleBytesPerSec: throttle }, {
      title: `raise ${topic}'s replication factor to ${n}`,
      description:
        `Adds ${added} replica(s) so each of ${moves.length} partition(s) of ${topic} has ${n} copies on different brokers. ` +
        `Existing replicas and leaders stay; new replicas copy the data, throttled. Consider min.insync.replicas=${Math.min(2, n)} and acks=all afterwards.`,
      steps: reassignmentSteps(moves, throttle, `${topic} to replication factor ${n}`),
      impact: {
        summary: `${added} new replica(s) copy ${topic}'s data at up to ${formatRate(throttle)}; no data moves off any broker`,
        risk: 'low',
        partitionsAffected: moves.length,
        replicasToCopy: added,
      },
      warnings,
    }),
  };
}

/** Apply replica lists given by an operator, checked against the cluster. */
export function planExplicitReassignment(snapshot: ClusterSnapshot, request: unknown, options: ReassignmentOptions = {}): PlanResult {
  const parsed = ExplicitReassignmentRequest.safeParse(request);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error) };
  const throttle = throttleOf(options);
  if (typeof throttle === 'string') return { ok: false, reason: throttle };
  const live = new Set(liveIds(snapshot));
  const moves: PartitionAssignment[] = [];
  let copies = 0;
  for (const want of parsed.data.partitions) {
    const found = findPartition(snapshot, want.topic, want.partition);
    if (typeof found === 'string') return { ok: false, reason: found };
    const notLive = want.replicas.filter((r) => !live.has(r));
    if (notLive.length) return { ok: false, reason: `${tpName(want)}: broker ${notLive.join(', ')} is not live (the reassignment tool accepts only live brokers)` };
    if (want.replicas.join(',') === found.p.replicas.join(',')) continue;
    copies += want.replicas.filter((r) => !found.p.replicas.includes(r)).length;
    moves.push({ topic: want.topic, partition: want.partition, replicas: want.replicas });
  }
  if (moves.length === 0) return { ok: false, reason: 'every partition already has the requested replica list: nothing to change' };
  moves.sort(byTp);
  const busy = inProgress(snapshot, moves);
  if (busy.length) return { ok: false, reason: `a reassignment is already running for ${busy.slice(0, 5).join(', ')}` };
  return {
    ok: true,
    plan: finishPlan(snapshot, 'reassign', { partitions: moves.map(({ topic, partition }) => ({ topic, partition })), assignment: moves, throttleBytesPerSec: throttle }, {
      title: `reassign ${moves.length} partition(s)`,
      description: `Applies the given replica lists to ${moves.length} partition(s); ${copies} new replica(s) copy data, throttled to ${formatRate(throttle)}.`,
      steps: reassignmentSteps(moves, throttle, 'explicit assignment'),
      impact: {
        summary: `${copies} replica(s) copied; leaders may move to the first replica of each list after a preferred election`,
        risk: 'medium',
        partitionsAffected: moves.length,
        replicasToCopy: copies,
      },
      warnings: [],
    }),
  };
}

/** Move leadership back to each partition's preferred (first) replica where it is live and in sync. */
export function planPreferredElection(snapshot: ClusterSnapshot, request: unknown = {}): PlanResult {
  const parsed = PreferredElectionRequest.safeParse(request);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error) };
  const live = new Set(liveIds(snapshot));
  const wanted = parsed.data.partitions ? new Set(parsed.data.partitions.map(tpName)) : null;
  const targets: { topic: string; partition: number; leader: number }[] = [];
  for (const t of snapshot.topics) {
    for (const p of t.partitions) {
      if (wanted && !wanted.has(tpName({ topic: t.name, partition: p.partition }))) continue;
      const preferred = p.replicas[0];
      if (preferred === undefined || p.leader === preferred) continue;
      if (!live.has(preferred) || !p.isr.includes(preferred)) continue;
      targets.push({ topic: t.name, partition: p.partition, leader: preferred });
    }
  }
  for (const tp of parsed.data.partitions ?? []) {
    const found = findPartition(snapshot, tp.topic, tp.partition);
    if (typeof found === 'string') return { ok: false, reason: found };
  }
  if (targets.length === 0) return { ok: false, reason: 'every partition is led by its preferred replica, or that replica is not live and in sync' };
  targets.sort(byTp);
  const tps = targets.map(({ topic, partition }) => ({ topic, partition }));
  return {
    ok: true,
    plan: finishPlan(snapshot, 'preferred-election', { partitions: tps }, {
      title: `preferred leader election for ${targets.length} partition(s)`,
      description: `Moves leadership of ${targets.length} partition(s) back to their first replica, which is live and in sync. No data moves and nothing is lost; clients follow the new leaders after a metadata refresh.`,
      steps: [
        {
          action: 'elect-leaders',
          description: `preferred leader election for ${targets.length} partition(s)`,
          electionType: 'preferred',
          partitions: tps,
        },
        { action: 'verify-leaders', description: 'verify each partition is led by its preferred replica', expected: targets },
      ],
      impact: { summary: `leadership of ${targets.length} partition(s) moves; brief client retries`, risk: 'low', partitionsAffected: targets.length },
      warnings: [],
    }),
  };
}

function formatRate(bytesPerSec: number): string {
  return bytesPerSec >= 1024 * 1024 ? `${(bytesPerSec / 1024 / 1024).toFixed(0)} MiB/s` : `${(bytesPerSec / 1024).toFixed(0)} KiB/s`;
}
