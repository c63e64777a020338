// Leader override: put a chosen replica in charge of a leaderless partition,
// and say honestly what that loses before anyone approves.
//
// Kafka's unclean election cannot name a replica: the controller takes the
// first live replica in assignment order. So the plan first reorders the
// assignment (chosen replica first), then runs an unclean election for that
// one partition. Reassignment accepts only live brokers, so replicas on dead
// brokers leave the list; KRaft keeps them as "removing" until the election
// (the chosen replica is then first), then drops them. Verified on 4.1.1 and
// 3.9.1 (LEADER-OVERRIDE.md).
//
// The loss is what lies beyond the chosen replica's end. Acknowledged data
// lived on the last in-sync replica (usually the dead leader): when that one
// cannot be measured, or was wiped, the loss is unknown, and the plan says so
// with a lower bound from what can be read (other replicas' log ends,
// checkpointed high watermarks, consumer groups' committed offsets).
//
// planLeaderOverride is pure; gatherLeaderOverrideInputs (gather.ts)
// is its I/O edge; assignment-steps.ts turns the choice into steps and
// warnings; the prose is index.ts's renderer.

import type { ClusterSnapshot, PartitionState } from '../../../kafka/types.ts';
import { elrHolders, type ElrReturnRole } from './elr.ts';
import type { Notice } from '../../failures.ts';
import { basePreconditions, findPartition, finishPlan, invalidRequest, isLeaderless, liveIds } from '../../planners.ts';
import { tpName } from '../../../kafka/partitions.ts';
import type {
  LeaderCandidate,
  LossBasis,
  LossEstimate,
  LossUnit,
  PlanOf,
  PlanResult,
  ReplicaData,
  TopicPartition,
  UnseenHolder,
} from '../../types.ts';
import { LeaderOverrideRequest } from './request.ts';
import { groupsBeyondEnd, groupsUnreadText, type CommittedGroup } from './groups.ts';
import { defaultUncleanChoice, lostMarkerWarnings, newAssignment, overrideSteps, overrideWarnings, transactionCheckStep, transactionWarnings } from './assignment-steps.ts';

// ---------------------------------------------------------------- inputs

export type { CommittedGroup } from './groups.ts';

export interface LeaderOverrideInputs {
  /** What each replica holds; several entries per broker (host, DescribeLogDirs) are merged. A missing broker is unmeasured. */
  replicaData: ReplicaData[];
  /** Groups with a committed offset on this partition. */
  groups: CommittedGroup[];
  /** Why committed offsets could not all be read; absent when every group answered. */
  groupsIncomplete?: string;
  /** Transactional producers in each replica's log (DescribeProducers at that broker); absent when not read. */
  transactions?: ReplicaTransactions[];
  /** Each replica's size as DescribeLogDirs alone reported it (what the fingerprint binds); absent: taken from replicaData. */
  logDirSizes?: ReplicaData[];
}

export type { ReplicaTransactions } from './assignment-steps.ts';
import type { ReplicaTransactions } from './assignment-steps.ts';

// ---------------------------------------------------------------- the plan

/** One replica as the loss arithmetic sees it: `end` is its log end offset, or its size in bytes. */
interface ReplicaView {
  brokerId: number;
  live: boolean;
  inIsr: boolean;
  end: number | null;
  data: ReplicaData;
}

/** What the plan is decided from, read once. */
interface Facts {
  tp: TopicPartition;
  p: PartitionState;
  live: ReadonlySet<number>;
  unit: LossUnit;
  views: ReplicaView[];
  groups: readonly CommittedGroup[];
  /** Replicas that may hold acknowledged data and could not be seen. */
  unseen: UnseenHolder[];
}

/** A replica that may have held the acknowledged data: the last in-sync replica, or the last leader. */
interface Holder {
  brokerId: number;
  role: UnseenHolder['role'];
  /** The last leader, or the only in-sync replica: its log was the longest of all. */
  longest: boolean;
}

export interface LeaderOverrideParams {
  topic: string;
  partition: number;
  replica: number;
  /** What was asked for; null when the planner chose. */
  requestedReplica: number | null;
}

/** What the fingerprint binds of each replica: its size as DescribeLogDirs reports it (null where it could not be read). */
export interface BoundSizes {
  unit: 'bytes';
  sizes: { broker: number; bytes: number | null }[];
}

/**
 * Each replica's size, as the fingerprint binds it. A leaderless partition
 * takes no writes, so a size that changed means a replica was wiped, refilled
 * or truncated since the plan: the run is STALE. Sizes come over the Kafka
 * protocol in one round trip per broker, so the re-check before the election
 * costs milliseconds; a log end offset needs a tool started on each host.
 */
export function boundSizes(replicas: readonly number[], sizes: readonly Pick<ReplicaData, 'brokerId' | 'sizeBytes'>[]): BoundSizes {
  const byBroker = new Map(sizes.map((d) => [d.brokerId, d.sizeBytes]));
  return { unit: 'bytes', sizes: replicas.map((broker) => ({ broker, bytes: byBroker.get(broker) ?? null })) };
}

export function leaderOverridePreconditions(params: Pick<LeaderOverrideParams, 'topic' | 'partition'>, s: ClusterSnapshot, measured: unknown): Record<string, unknown> {
  const { topic, partition } = params;
  const p = s.topics.find((t) => t.name === topic)?.partitions.find((x) => x.partition === partition);
  return {
    ...basePreconditions('leader-override', s),
    topic,
    partition,
    leader: p ? p.leader : null,
    replicas: p ? p.replicas : null,
    isr: p ? [...p.isr].sort((a, b) => a - b) : null,
    measured: measured ?? null,
  };
}

export function planLeaderOverride(snapshot: ClusterSnapshot, request: unknown, inputs: LeaderOverrideInputs): PlanResult<PlanOf<'leader-override'>> {
  const parsed = LeaderOverrideRequest.safeParse(request);
  if (!parsed.success) return { ok: false, refusal: invalidRequest(parsed.error) };
  const { topic, partition, replica } = parsed.data;
  const found = findPartition(snapshot, topic, partition);
  if ('refusal' in found) return { ok: false, refusal: found.refusal };
  const { p } = found;
  const live = new Set(liveIds(snapshot));
  if (!isLeaderless(p, live)) return { ok: false, refusal: { code: 'partition-has-leader', partition: tpName({ topic, partition }), leader: p.leader } };

  const data = mergeReplicaData(inputs.replicaData);
  const unit = lossUnitOf(p.replicas, data);
  const views = replicaViews(p, live, data, unit);
  const { groups } = inputs;
  const unseen = unseenHolders(possibleHolders(p, live), views, groups, unit);
  const tp = { topic, partition };
  const facts: Facts = { tp, p, live, unit, views, groups, unseen };
  const candidates = views.map((v) => candidateOf(v, facts));

  const chosen = chooseReplica(facts, candidates, replica);
  if (typeof chosen !== 'number') return { ok: false, refusal: chosen };
  const chosenC = candidates.find((c) => c.brokerId === chosen)!;
  const loss = chosenC.loss!;
  const beyond = groupsBeyondEnd(groups, loss);
  const unread = groupsUnreadText(groups, inputs.groupsIncomplete);
  const assignment = newAssignment(p, live, chosen);

  const params: LeaderOverrideParams = { topic, partition, replica: chosen, requestedReplica: replica ?? null };
  const measured = boundSizes(p.replicas, inputs.logDirSizes ?? inputs.replicaData);
  return {
    ok: true,
    plan: finishPlan(snapshot, 'leader-override', params, leaderOverridePreconditions(params, snapshot, measured), {
      title: `make broker ${chosen} lead ${topic}-${partition}`,
      steps: [...overrideSteps(tp, chosen, assignment, beyond), ...transactionCheckStep(tp, chosen, inputs.transactions, data)],
      impact: {
        risk: 'high',
        partitionsAffected: 1,
        candidates,
        estimatedMessagesLost: chosenC.estimatedMessagesLost,
        loss,
        groupsBeyondEnd: beyond,
        ...(unread ? { groupsUnread: unread } : {}),
        assignment: { before: p.replicas, isr: p.isr, ...(p.elr ? { elr: p.elr, lastKnownElr: p.lastKnownElr ?? [] } : {}), after: assignment.replicas, reorder: assignment.reorder },
      },
      warnings: [...overrideWarnings(facts, assignment), ...transactionWarnings(tp, chosen, inputs.transactions), ...lostMarkerWarnings(tp, chosen, data)],
    }),
  };
}

/** One entry per broker: the first known figure of each kind wins (host before DescribeLogDirs when both are given in that order). */
export function mergeReplicaData(entries: readonly ReplicaData[]): Map<number, ReplicaData> {
  const byBroker = new Map<number, ReplicaData[]>();
  for (const e of entries) byBroker.set(e.brokerId, [...(byBroker.get(e.brokerId) ?? []), e]);
  const merged = new Map<number, ReplicaData>();
  for (const [brokerId, list] of byBroker) {
    const first = <K extends 'logEndOffset' | 'checkpointedHighWatermark' | 'sizeBytes'>(k: K) => list.map((e) => e[k]).find((v) => typeof v === 'number') ?? null;
    const figures = (e: ReplicaData) => [e.logEndOffset, e.checkpointedHighWatermark, e.sizeBytes].some((v) => typeof v === 'number');
    const contributing = list.filter(figures);
    // Keep the errors of the sources that yielded nothing: they say why a figure is missing.
    const errors = [...new Set(list.filter((e) => !figures(e) && e.error).map((e) => `${e.source}: ${e.error}`))];
    merged.set(brokerId, {
      brokerId,
      logEndOffset: first('logEndOffset'),
      checkpointedHighWatermark: first('checkpointedHighWatermark'),
      sizeBytes: first('sizeBytes'),
      ...(() => {
        const txns = list.find((e) => e.lastSegmentTransactions)?.lastSegmentTransactions;
        return txns ? { lastSegmentTransactions: txns } : {};
      })(),
      source: [...new Set((contributing.length ? contributing : list).map((e) => e.source))].join('+'),
      ...(errors.length ? { error: errors.join('; ') } : {}),
    });
  }
  return merged;
}

/** Offsets when any replica's log end could be read; otherwise bytes (no host access: DescribeLogDirs sizes only). */
function lossUnitOf(replicas: readonly number[], data: ReadonlyMap<number, ReplicaData>): LossUnit {
  if (replicas.some((r) => typeof data.get(r)?.logEndOffset === 'number')) return 'messages';
  return replicas.some((r) => typeof data.get(r)?.sizeBytes === 'number') ? 'bytes' : 'messages';
}

function replicaViews(p: PartitionState, live: ReadonlySet<number>, data: ReadonlyMap<number, ReplicaData>, unit: LossUnit): ReplicaView[] {
  return p.replicas.map((brokerId) => {
    const d = data.get(brokerId) ?? { brokerId, logEndOffset: null, source: 'none', error: 'no measurement' };
    const end = unit === 'messages' ? d.logEndOffset : d.sizeBytes;
    return { brokerId, live: live.has(brokerId), inIsr: p.isr.includes(brokerId), end: typeof end === 'number' ? end : null, data: d };
  });
}

/**
 * Who may have held the acknowledged data. Without ELR (ZooKeeper mode, KRaft
 * before 4.1) the ISR keeps the dead last member, e.g. [1]. With ELR (KIP-966)
 * the ISR of such a partition is empty and Metadata does not say who was last:
 * then every replica may have been.
 */
function possibleHolders(p: PartitionState, live: ReadonlySet<number>): Holder[] {
  const deadLeader = p.leader >= 0 && !live.has(p.leader) ? p.leader : null;
  const holders: Holder[] = p.isr.length
    ? p.isr.map((brokerId) => ({ brokerId, role: 'last-isr', longest: p.isr.length === 1 }))
    : (elrHolders(p) ?? p.replicas.map((brokerId) => ({ brokerId, role: 'maybe-last-isr', longest: false })));
  if (deadLeader !== null) {
    const known = holders.find((h) => h.brokerId === deadLeader);
    if (known) Object.assign(known, { role: 'last-leader', longest: true });
    else holders.push({ brokerId: deadLeader, role: 'last-leader', longest: true });
  }
  return holders;
}

/**
 * Figures showing data beyond a replica's end, highest first. In messages:
 * other replicas' log ends, every replica's checkpointed high watermark and
 * every committed offset (the last two only ever cover acknowledged writes).
 * In bytes: other replicas' sizes. On equal values the acknowledged kinds come
 * first: they say more.
 */
function evidenceAgainst(brokerId: number, views: readonly ReplicaView[], groups: readonly CommittedGroup[], unit: LossUnit): LossBasis[] {
  const out: LossBasis[] = [];
  for (const v of views) {
    if (v.brokerId !== brokerId && v.end !== null) out.push({ kind: unit === 'messages' ? 'replica-log-end' : 'replica-size', brokerId: v.brokerId, value: v.end });
    const hw = v.data.checkpointedHighWatermark;
    if (unit === 'messages' && typeof hw === 'number') out.push({ kind: 'checkpointed-high-watermark', brokerId: v.brokerId, value: hw });
  }
  if (unit === 'messages') for (const g of groups) if (g.committedOffset !== null) out.push({ kind: 'committed-offset', groupId: g.groupId, value: g.committedOffset });
  const rank: Record<LossBasis['kind'], number> = { 'committed-offset': 0, 'checkpointed-high-watermark': 1, 'replica-log-end': 2, 'replica-size': 2 };
  return out.sort((a, b) => b.value - a.value || rank[a.kind] - rank[b.kind]);
}

/**
 * Holders whose data the plan cannot see: not measured, or measured shorter
 * than they must be (a wiped disk recreated empty measures as 0, and would
 * otherwise promise that nothing is lost). The last leader, or a sole in-sync
 * replica, held the longest log of all; any in-sync replica held at least
 * everything acknowledged. With an empty ISR a replica that merely lagged is
 * normal, so only an empty log next to data elsewhere counts as wiped.
 */
function unseenHolders(holders: readonly Holder[], views: readonly ReplicaView[], groups: readonly CommittedGroup[], unit: LossUnit): UnseenHolder[] {
  const out: UnseenHolder[] = [];
  for (const h of holders) {
    const v = views.find((x) => x.brokerId === h.brokerId);
    if (!v || v.end === null) {
      out.push({ brokerId: h.brokerId, role: h.role, problem: 'unmeasured', ...(v?.data.error ? { detail: v.data.error } : {}) });
      continue;
    }
    const evidence = evidenceAgainst(h.brokerId, views, groups, unit);
    const highest = evidence[0]?.value ?? 0;
    const highestAcknowledged = evidence.find((e) => e.kind === 'committed-offset' || e.kind === 'checkpointed-high-watermark')?.value ?? 0;
    const emptyLog = v.data.sizeBytes === 0 || (unit === 'messages' && v.end === 0);
    const shorter = h.longest ? highest > v.end : h.role === 'last-isr' ? highestAcknowledged > v.end : emptyLog && highest > v.end;
    if (shorter) out.push({ brokerId: h.brokerId, role: h.role, problem: 'shorter' });
  }
  return out;
}

function estimateLoss(v: ReplicaView, { views, unseen, groups, unit }: Facts): LossEstimate {
  // This replica's own missing figure is said by `end: null`; its own wiped log is still an unseen holder.
  const relevant = unseen.filter((u) => u.brokerId !== v.brokerId || u.problem === 'shorter');
  if (v.end === null) return { unit, known: false, atLeast: null, end: null, basis: null, unseen: relevant };
  const top = evidenceAgainst(v.brokerId, views, groups, unit)[0];
  const atLeast = top ? Math.max(0, top.value - v.end) : 0;
  return { unit, known: relevant.length === 0, atLeast, end: v.end, basis: atLeast > 0 ? top! : null, unseen: relevant };
}

function candidateOf(v: ReplicaView, facts: Facts): LeaderCandidate {
  const loss = estimateLoss(v, facts);
  return {
    brokerId: v.brokerId,
    live: v.live,
    inIsr: v.inIsr,
    logEndOffset: v.data.logEndOffset,
    checkpointedHighWatermark: v.data.checkpointedHighWatermark ?? null,
    sizeBytes: v.data.sizeBytes ?? null,
    estimatedMessagesLost: loss.unit === 'messages' && loss.known ? loss.atLeast : null,
    loss,
    defaultChoice: v.brokerId === defaultUncleanChoice(facts.p, facts.live),
    ...(v.end === null && v.data.error ? { unmeasured: v.data.error } : {}),
    ...(v.live ? {} : { ineligible: `broker ${v.brokerId} is not live` }),
  };
}

/** What a plain unclean election picks: the first live replica in assignment order. */

/** The named replica, checked; otherwise the live replica holding the most (then the higher checkpointed high watermark, then the lower id). */
function chooseReplica({ tp, p, live, unit }: Facts, candidates: readonly LeaderCandidate[], named: number | undefined): number | Notice {
  const name = tpName(tp);
  if (named !== undefined) {
    if (!p.replicas.includes(named)) return { code: 'replica-not-assigned', broker: named, partition: name, replicas: p.replicas };
    if (!live.has(named)) return { code: 'replica-not-live', broker: named };
    return named;
  }
  const measured = candidates.filter((c) => c.live && c.loss!.end !== null);
  if (measured.length === 0) return { code: candidates.some((c) => c.live) ? 'no-measured-replica' : 'no-live-replica', partition: name };
  measured.sort(
    (a, b) =>
      b.loss!.end! - a.loss!.end! ||
      (unit === 'messages' ? (b.checkpointedHighWatermark ?? -1) - (a.checkpointedHighWatermark ?? -1) : 0) ||
      a.brokerId - b.brokerId,
  );
  return measured[0]!.brokerId;
}

export type LeaderOverrideNotice =
  | { code: 'partition-has-leader'; partition: string; leader: number }
  | { code: 'replica-not-assigned'; broker: number; partition: string; replicas: number[] }
  | { code: 'replica-not-live'; broker: number }
  | { code: 'no-measured-replica' | 'no-live-replica'; partition: string }
  | { code: 'replicas-dropped'; brokers: number[]; from: number; to: number }
  | { code: 'do-not-start'; brokers: number[]; isrKnown: boolean; elrRole?: ElrReturnRole }
  | { code: 'loss-in-bytes' }
  | { code: 'transactions-unknown'; partition: string; broker: number; error: string }
  | { code: 'open-transactions-on-replica'; partition: string; broker: number; transactions: { producerId: number; producerEpoch: number; firstOffset: number }[] }
  | { code: 'transactional-producers'; partition: string; broker: number; brokers: number[] }
  | { code: 'markers-on-lost-tail'; partition: string; broker: number; from: number; markers: number; producers: number[]; firstOffset: number };
