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
// planLeaderOverride is pure; gatherLeaderOverrideInputs is its I/O edge.

import type { Executor } from '../hosts/types.ts';
import type { ClusterSnapshot, PartitionState } from '../kafka/types.ts';
import { mapLimit, withTimeout } from '../kafka/limits.ts';
import { errorMessage } from '../runtime/errors.ts';
import { elrHolders, elrReturnRole, elrStateText, returnElectionText } from './elr.ts';
import { candidateLossText, formatBytes, formatCount, goneForGoodLine, lossHeadline, lossSummary } from './loss-text.ts';
import { findPartition, finishPlan, isLeaderless, liveIds, tpName } from './planners.ts';
import { measureReplicas, type ReplicaHost } from './replica-data.ts';
import type {
  GroupBeyondEnd,
  LeaderCandidate,
  LossBasis,
  LossEstimate,
  LossUnit,
  PlanOf,
  PlanResult,
  PlanStep,
  ReplicaData,
  TopicPartition,
  UnseenHolder,
} from './types.ts';
import { LeaderOverrideRequest, describeIssues } from './validate.ts';
import { PartitionId, TopicName } from '../kafka/names.ts';

// ---------------------------------------------------------------- inputs

/** A consumer group's committed offset on the partition being overridden. */
export interface CommittedGroup {
  groupId: string;
  /** As DescribeGroups reports it ("Empty", "Stable", ...); "Unknown" when it could not be described. */
  state: string;
  /** Active members; null when the group could not be described. */
  members: number | null;
  /** null when the group's offset on this partition could not be read. */
  committedOffset: number | null;
}

export interface LeaderOverrideInputs {
  /** What each replica holds; several entries per broker (host, DescribeLogDirs) are merged. A missing broker is unmeasured. */
  replicaData: ReplicaData[];
  /** Groups with a committed offset on this partition. */
  groups: CommittedGroup[];
  /** Why committed offsets could not all be read; absent when every group answered. */
  groupsIncomplete?: string;
}

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

export function planLeaderOverride(snapshot: ClusterSnapshot, request: unknown, inputs: LeaderOverrideInputs): PlanResult<PlanOf<'leader-override'>> {
  const parsed = LeaderOverrideRequest.safeParse(request);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error) };
  const { topic, partition, replica } = parsed.data;
  const found = findPartition(snapshot, topic, partition);
  if (typeof found === 'string') return { ok: false, reason: found };
  const { p } = found;
  const live = new Set(liveIds(snapshot));
  if (!isLeaderless(p, live)) {
    return { ok: false, reason: `${topic}-${partition} has a leader (broker ${p.leader}); a leader override is only for a partition without one` };
  }

  const data = mergeReplicaData(inputs.replicaData);
  const unit = lossUnitOf(p.replicas, data);
  const views = replicaViews(p, live, data, unit);
  const { groups } = inputs;
  const unseen = unseenHolders(possibleHolders(p, live), views, groups, unit);
  const tp = { topic, partition };
  const facts: Facts = { tp, p, live, unit, views, groups, unseen };
  const candidates = views.map((v) => candidateOf(v, facts));

  const chosen = chooseReplica(facts, candidates, replica);
  if (typeof chosen === 'string') return { ok: false, reason: chosen };
  const chosenC = candidates.find((c) => c.brokerId === chosen)!;
  const loss = chosenC.loss!;
  const beyond = groupsBeyondEnd(groups, loss);
  const unread = groupsUnreadText(groups, inputs.groupsIncomplete);
  const assignment = newAssignment(p, live, chosen);

  const params = { topic, partition, replica: chosen, requestedReplica: replica ?? null };
  return {
    ok: true,
    plan: finishPlan(snapshot, 'leader-override', params, {
      title: `make broker ${chosen} lead ${topic}-${partition}`,
      description: overrideDescription(p, tp, chosenC, candidates.find((c) => c.defaultChoice) ?? null),
      steps: overrideSteps(tp, chosen, assignment, beyond),
      impact: {
        summary: overrideSummary(tp, loss, assignment, p, beyond),
        risk: 'high',
        partitionsAffected: 1,
        candidates,
        estimatedMessagesLost: chosenC.estimatedMessagesLost,
        loss,
        groupsBeyondEnd: beyond,
        ...(unread ? { groupsUnread: unread } : {}),
      },
      warnings: overrideWarnings(facts, chosen, assignment, beyond, unread),
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
    ...(v.live ? {} : { ineligible: `broker ${v.brokerId} is not live` }),
  };
}

/** What a plain unclean election picks: the first live replica in assignment order. */
function defaultUncleanChoice(p: PartitionState, live: ReadonlySet<number>): number | null {
  return p.replicas.find((r) => live.has(r)) ?? null;
}

/** The named replica, checked; otherwise the live replica holding the most (then the higher checkpointed high watermark, then the lower id). */
function chooseReplica({ tp, p, live, unit }: Facts, candidates: readonly LeaderCandidate[], named: number | undefined): number | string {
  const name = tpName(tp);
  if (named !== undefined) {
    if (!p.replicas.includes(named)) return `broker ${named} holds no replica of ${name} (replicas: ${p.replicas.join(', ')})`;
    if (!live.has(named)) return `broker ${named} is not live; only a live replica can lead`;
    return named;
  }
  const measured = candidates.filter((c) => c.live && c.loss!.end !== null);
  if (measured.length === 0) {
    return candidates.some((c) => c.live)
      ? `no live replica of ${name} could be measured (neither its log end on the host nor its size through DescribeLogDirs); name the replica to put in charge`
      : `no replica of ${name} is on a live broker`;
  }
  measured.sort(
    (a, b) =>
      b.loss!.end! - a.loss!.end! ||
      (unit === 'messages' ? (b.checkpointedHighWatermark ?? -1) - (a.checkpointedHighWatermark ?? -1) : 0) ||
      a.brokerId - b.brokerId,
  );
  return measured[0]!.brokerId;
}

/**
 * Groups committed beyond the new end: they would hit OFFSET_OUT_OF_RANGE.
 * While the new end is unknown (the chosen replica unmeasured, or sizes only),
 * every group committed on the partition may be beyond it.
 */
function groupsBeyondEnd(groups: readonly CommittedGroup[], loss: LossEstimate): GroupBeyondEnd[] {
  const end = loss.unit === 'messages' ? loss.end : null;
  return groups
    .filter((g): g is CommittedGroup & { committedOffset: number } => g.committedOffset !== null && (end === null || g.committedOffset > end))
    .map((g) => ({ groupId: g.groupId, committedOffset: g.committedOffset, state: g.state, members: g.members, certain: end !== null, committedByPlan: isIdle(g) }))
    .sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
}

/** Only a group nobody consumes in can have its offset committed for it; DescribeGroups says so with Empty and no members. */
function isIdle(g: CommittedGroup): boolean {
  return g.state.toLowerCase() === 'empty' && g.members === 0;
}

function groupsUnreadText(groups: readonly CommittedGroup[], incomplete: string | undefined): string | undefined {
  const unreadable = groups.filter((g) => g.committedOffset === null).map((g) => g.groupId);
  const parts = [incomplete ?? '', unreadable.length ? `no committed offset could be read for ${unreadable.slice(0, 10).join(', ')}${unreadable.length > 10 ? ` and ${unreadable.length - 10} more` : ''}` : ''];
  return parts.filter(Boolean).join('; ') || undefined;
}

interface NewAssignment {
  /** The election takes the first live replica: a reorder is needed only when that is not the chosen one. */
  reorder: boolean;
  replicas: number[];
  /** Dead replicas that leave the list (the reassignment accepts only live brokers). */
  dropped: number[];
}

function newAssignment(p: PartitionState, live: ReadonlySet<number>, chosen: number): NewAssignment {
  if (defaultUncleanChoice(p, live) === chosen) return { reorder: false, replicas: p.replicas, dropped: [] };
  return {
    reorder: true,
    replicas: [chosen, ...p.replicas.filter((r) => r !== chosen && live.has(r))],
    dropped: p.replicas.filter((r) => r !== chosen && !live.has(r)),
  };
}

function overrideSteps(tp: TopicPartition, chosen: number, a: NewAssignment, beyond: readonly GroupBeyondEnd[]): PlanStep[] {
  const name = tpName(tp);
  const steps: PlanStep[] = [];
  if (a.reorder) {
    steps.push({
      action: 'reassign',
      description:
        `reorder ${name} replicas to ${a.replicas.join(',')} so broker ${chosen} is first` +
        (a.dropped.length ? ` (${a.dropped.length > 1 ? `dead brokers ${a.dropped.join(', ')} leave` : `dead broker ${a.dropped[0]} leaves`} the list)` : ''),
      partitions: [{ ...tp, replicas: a.replicas }],
      throttleBytesPerSec: null,
    });
  }
  steps.push({
    action: 'elect-leaders',
    description: `unclean leader election for ${name}: the controller picks the first live replica, broker ${chosen}`,
    electionType: 'unclean',
    partitions: [tp],
  });
  steps.push({ action: 'verify-leaders', description: `verify broker ${chosen} leads ${name} and is in its ISR`, expected: [{ ...tp, leader: chosen }] });
  const idle = beyond.filter((g) => g.committedByPlan).map((g) => g.groupId);
  if (idle.length) {
    steps.push({
      action: 'commit-offsets',
      description:
        `commit ${idle.length} consumer group(s) without active members at broker ${chosen}'s new log end on ${name}, ` +
        `where their committed offset lies beyond it (read after the election), so they resume there instead of resetting: ` +
        `${idle.slice(0, 10).join(', ')}${idle.length > 10 ? ` and ${idle.length - 10} more` : ''}`,
      ...tp,
      groups: idle,
    });
  }
  if (a.reorder) steps.push({ action: 'wait-reassignment', description: `wait until the reorder of ${name} completes`, reassignStep: 0 });
  return steps;
}

function overrideWarnings({ p, live, views, unseen, unit }: Facts, chosen: number, a: NewAssignment, beyond: readonly GroupBeyondEnd[], unread: string | undefined): string[] {
  const warnings: string[] = [];
  if (a.dropped.length) {
    warnings.push(
      `replicas on broker ${a.dropped.join(', ')} leave the assignment (the reassignment accepts only live brokers): ` +
        `replication factor drops from ${p.replicas.length} to ${a.replicas.length}; re-add them with a reassignment once the broker is back`,
    );
  }
  warnings.push(...returnWarnings(p, live));
  for (const v of views) {
    if (v.end !== null) continue;
    const holder = unseen.find((u) => u.brokerId === v.brokerId);
    const why = v.data.error ? ` (${v.data.error})` : '';
    if (v.brokerId === chosen) warnings.push(`the chosen broker ${chosen} could not be measured${why}: the loss is unknown`);
    else if (holder) warnings.push(`broker ${v.brokerId} could not be measured${why}: it may hold acknowledged data beyond broker ${chosen}'s end, so the loss is unknown`);
    else warnings.push(`no data measured for broker ${v.brokerId}${why}: it was out of the last ISR, so the last in-sync replica's figures bound what it may hold`);
  }
  for (const u of unseen.filter((x) => x.problem === 'shorter')) {
    const end = views.find((v) => v.brokerId === u.brokerId)?.end ?? 0;
    warnings.push(
      `broker ${u.brokerId} ${u.role === 'maybe-last-isr' ? 'has an empty log while other replicas hold data' : 'holds less than other replicas or consumer groups show was written'} ` +
        `(${unit === 'messages' ? `log end ${formatCount(end)}` : formatBytes(end)}): if it was the last in-sync replica, its disk was wiped or truncated and what was acknowledged is unknown`,
    );
  }
  if (unit === 'bytes') {
    warnings.push(
      'no log end offset could be read (no host access): losses are estimated from DescribeLogDirs replica sizes in bytes, which also differ with retention and compaction; ' +
        'which consumer groups are beyond the new end is only known after the election',
    );
  }
  const active = beyond.filter((g) => !g.committedByPlan);
  if (active.length) {
    const names = `${active.slice(0, 10).map((g) => g.groupId).join(', ')}${active.length > 10 ? ` and ${active.length - 10} more` : ''}`;
    warnings.push(
      `consumer group(s) ${names} ${active.every((g) => g.certain) ? 'are' : 'may be'} committed beyond broker ${chosen}'s end and have active members (or could not be described): ` +
        'they will hit OFFSET_OUT_OF_RANGE and reset per auto.offset.reset (possibly re-reading everything); stop them and plan again to have them committed at the new end',
    );
  }
  if (unread) warnings.push(`committed offsets could not all be read (${unread}): consumer groups beyond the new end may be missing from this plan`);
  return warnings;
}

/** The dead holder coming back first is what destroys the data (LEADER-OVERRIDE.md, "The danger"). */
function returnWarnings(p: PartitionState, live: ReadonlySet<number>): string[] {
  const deadIsr = p.isr.filter((r) => !live.has(r));
  const fromElr = elrHolders(p)?.map((h) => h.brokerId).filter((r) => !live.has(r));
  const deadReplicas = p.replicas.filter((r) => !live.has(r));
  const [dead, why] = p.isr.length
    ? [deadIsr, 'it is the last in-sync replica']
    : fromElr
      ? [fromElr, elrReturnRole(p, fromElr[0]!) ?? 'it may hold the acknowledged data']
      : [deadReplicas, 'it may be the last in-sync replica (the ISR is empty and its eligible leader replicas could not be read)'];
  if (!dead.length) return [];
  return [
    `do not start broker ${dead.join(', ')} before this runs: ${why}, and ${returnElectionText(p.isr.length === 0)}; ` +
      'if its disk was lost, every other replica then truncates to its empty log (measured on the sandbox)',
  ];
}

function overrideDescription(p: PartitionState, tp: TopicPartition, chosen: LeaderCandidate, defaultC: LeaderCandidate | null): string {
  const loss = chosen.loss!;
  const holds =
    loss.end === null
      ? 'an unmeasured log'
      : loss.unit === 'bytes'
        ? `${formatBytes(loss.end)} of data (DescribeLogDirs)`
        : `its log ending at offset ${formatCount(loss.end)}`;
  return (
    `${tpName(tp)} has no leader (replicas ${p.replicas.join(',')}, ${elrStateText(p) ?? `ISR ${p.isr.join(',') || 'empty'}`}). ` +
    `Broker ${chosen.brokerId} becomes leader with ${holds}. ${lossHeadline(loss, chosen.brokerId)}.` +
    defaultComparison(chosen, defaultC) +
    ` ${goneForGoodLine(loss, chosen.brokerId)}`
  );
}

/** What the plain unclean election (no reorder) would do instead. */
function defaultComparison(chosen: LeaderCandidate, d: LeaderCandidate | null): string {
  if (!d || d.brokerId === chosen.brokerId) return '';
  const [a, b] = [chosen.loss!, d.loss!];
  const base = ` An unclean election without the reorder would pick broker ${d.brokerId}`;
  if (a.end === null || b.end === null) return `${base} (its loss: ${candidateLossText(d)}).`;
  const diff = a.end - b.end;
  const amount = a.unit === 'bytes' ? `${formatBytes(Math.abs(diff))} ${diff > 0 ? 'less' : 'more'}` : `${formatCount(Math.abs(diff))} ${diff > 0 ? 'fewer' : 'more'} messages`;
  const holds = diff === 0 ? `as much as broker ${chosen.brokerId}` : `${amount} than broker ${chosen.brokerId}`;
  return `${base}, which holds ${holds} (its loss: ${candidateLossText(d)}).`;
}

function overrideSummary(tp: TopicPartition, loss: LossEstimate, a: NewAssignment, p: PartitionState, beyond: readonly GroupBeyondEnd[]): string {
  const fixed = beyond.filter((g) => g.committedByPlan).length;
  const resetting = beyond.length - fixed;
  return [
    `writes and reads resume on ${tpName(tp)}`,
    lossSummary(loss),
    a.dropped.length ? `replication factor ${p.replicas.length} → ${a.replicas.length}` : '',
    fixed ? `${fixed} idle consumer group(s) committed at the new end` : '',
    resetting ? `${resetting} consumer group(s) with members ${beyond.every((g) => g.certain) ? 'will' : 'may'} reset` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

// ---------------------------------------------------------------- gathering the inputs

/**
 * The part of lib/kafka/admin.ts's KafkaAdmin this needs (structural, so any
 * admin with these methods fits, and tests pass small fakes).
 */
export interface LeaderOverrideAdmin {
  describeLogDirs(brokerIds: number[], partitions: TopicPartition[] | null): Promise<Map<number, BrokerLogDirs>>;
  listGroups(): Promise<{ groupId: string; protocolType: string }[]>;
  describeGroups(groupIds: string[]): Promise<{ groupId: string; errorCode: number; state: string; protocolType: string; members: number }[]>;
  fetchCommittedOffsets(groupId: string, partitions?: TopicPartition[]): Promise<{ topic: string; partition: number; offset: number; errorCode: number }[]>;
}

/** One broker's DescribeLogDirs answer. */
export interface BrokerLogDirs {
  error: string | null;
  logDirs: LogDirAnswer[];
}

export interface LogDirAnswer {
  path: string;
  errorCode: number;
  partitions: { topic: string; partition: number; sizeBytes: number; offsetLag: number; isFuture: boolean }[];
}

export interface GatherTimeouts {
  /** Host measurement (kafka-dump-log.sh on each broker host, in parallel). */
  hostsMs: number;
  /** DescribeLogDirs, per broker. */
  logDirsMs: number;
  /** All of the consumer-group reading together (list, offsets, describe). */
  groupsMs: number;
  /** One group's OffsetFetch. */
  perGroupMs: number;
}

export const DEFAULT_GATHER_TIMEOUTS: GatherTimeouts = { hostsMs: 120_000, logDirsMs: 15_000, groupsMs: 30_000, perGroupMs: 5_000 };

export interface LeaderOverrideDeps {
  admin: LeaderOverrideAdmin;
  /** Host access to measure log end offsets; absent without it (e.g. Amazon MSK, hosts.executor "none"). */
  hosts?: { executor: Executor; replicas: ReplicaHost[] };
  timeouts?: Partial<GatherTimeouts>;
}

/** Groups read in parallel; coordinators are spread over the brokers. */
const GROUP_FETCH_CONCURRENCY = 8;
const DESCRIBE_GROUPS_BATCH = 100;

/**
 * Reads what planLeaderOverride needs: log end offsets on the hosts (when
 * there is host access), DescribeLogDirs sizes (always: the only figure on
 * MSK), and every group's committed offset on the partition. Each source is
 * bounded by a timeout and fails soft: what could not be read is recorded as
 * unknown, never as 0.
 */
export async function gatherLeaderOverrideInputs(deps: LeaderOverrideDeps, topic: string, partition: number, replicas: readonly number[]): Promise<LeaderOverrideInputs> {
  TopicName.parse(topic);
  PartitionId.parse(partition);
  const timeouts = { ...DEFAULT_GATHER_TIMEOUTS, ...deps.timeouts };
  const tp = { topic, partition };
  const [onHosts, sizes, groups] = await Promise.all([
    deps.hosts ? measureOnHosts(deps.hosts, tp, timeouts.hostsMs) : Promise.resolve([]),
    replicaSizes(deps.admin, tp, replicas, timeouts.logDirsMs),
    committedGroups(deps.admin, tp, timeouts),
  ]);
  const merged = mergeReplicaData([...onHosts, ...sizes]);
  return { replicaData: replicas.map((r) => merged.get(r)!), ...groups };
}

async function measureOnHosts(hosts: NonNullable<LeaderOverrideDeps['hosts']>, tp: TopicPartition, ms: number): Promise<ReplicaData[]> {
  try {
    // measureReplicas bounds each host run; the outer bound covers a transport that never answers.
    return await withTimeout(measureReplicas(hosts.executor, hosts.replicas, tp.topic, tp.partition, ms), ms + 5_000, 'measuring replicas on the hosts');
  } catch (err) {
    return hosts.replicas.map((h) => ({ brokerId: h.target.brokerId, logEndOffset: null, source: 'host', error: errorMessage(err) }));
  }
}

/** Each broker asked on its own: a dead one (it cannot answer) must not cost the others' answers. */
async function replicaSizes(admin: LeaderOverrideAdmin, tp: TopicPartition, replicas: readonly number[], ms: number): Promise<ReplicaData[]> {
  return Promise.all(
    replicas.map(async (brokerId): Promise<ReplicaData> => {
      const unknown = (error: string): ReplicaData => ({ brokerId, logEndOffset: null, sizeBytes: null, source: 'describe-log-dirs', error });
      try {
        const answer = (await withTimeout(admin.describeLogDirs([brokerId], [tp]), ms, `DescribeLogDirs on broker ${brokerId}`)).get(brokerId);
        if (!answer) return unknown('no answer');
        if (answer.error) return unknown(answer.error);
        return sizeFromLogDirs(brokerId, answer.logDirs, tp) ?? unknown('a log dir is offline: the replica may be on it');
      } catch (err) {
        return unknown(errorMessage(err));
      }
    }),
  );
}

/** The replica's size; 0 when every log dir answered and none holds it; null when an offline dir might. */
function sizeFromLogDirs(brokerId: number, dirs: readonly LogDirAnswer[], tp: TopicPartition): ReplicaData | null {
  const healthy = dirs.filter((d) => d.errorCode === 0);
  // A replica being moved between log dirs has a "future" copy too; the current one is what would lead.
  const hit = healthy.flatMap((d) => d.partitions).find((x) => x.topic === tp.topic && x.partition === tp.partition && !x.isFuture);
  if (hit) return { brokerId, logEndOffset: null, sizeBytes: hit.sizeBytes, source: 'describe-log-dirs' };
  if (healthy.length < dirs.length) return null;
  return { brokerId, logEndOffset: null, sizeBytes: 0, source: 'describe-log-dirs' };
}

/** Every group's committed offset on the partition, with its state; groups that do not answer are counted, not guessed. */
async function committedGroups(admin: LeaderOverrideAdmin, tp: TopicPartition, t: GatherTimeouts): Promise<Pick<LeaderOverrideInputs, 'groups' | 'groupsIncomplete'>> {
  const deadline = Date.now() + t.groupsMs;
  const left = () => deadline - Date.now();
  let listed: { groupId: string }[];
  try {
    listed = await withTimeout(admin.listGroups(), left(), 'ListGroups');
  } catch (err) {
    return { groups: [], groupsIncomplete: `listing consumer groups failed: ${errorMessage(err)}` };
  }
  const unanswered: string[] = [];
  const offsets = await mapLimit(listed, GROUP_FETCH_CONCURRENCY, async ({ groupId }) => {
    if (left() <= 0) {
      unanswered.push(groupId);
      return null;
    }
    try {
      const rows = await withTimeout(admin.fetchCommittedOffsets(groupId, [tp]), Math.min(left(), t.perGroupMs), `OffsetFetch for group ${groupId}`);
      const row = rows.find((r) => r.topic === tp.topic && r.partition === tp.partition);
      if (row && row.errorCode !== 0) unanswered.push(groupId);
      // -1: the group has no committed offset on this partition.
      return row && row.errorCode === 0 && row.offset >= 0 ? { groupId, offset: row.offset } : null;
    } catch {
      unanswered.push(groupId);
      return null;
    }
  });
  const committed = offsets.filter((x): x is { groupId: string; offset: number } => x !== null);
  const states = await groupStates(admin, committed.map((c) => c.groupId), left);
  const groups = committed.map((c) => ({ groupId: c.groupId, committedOffset: c.offset, ...(states.get(c.groupId) ?? { state: 'Unknown', members: null }) }));
  if (!unanswered.length) return { groups };
  unanswered.sort();
  return {
    groups,
    groupsIncomplete:
      `${unanswered.length} of ${listed.length} consumer group(s) did not give their committed offset in time: ` +
      `${unanswered.slice(0, 10).join(', ')}${unanswered.length > 10 ? ` and ${unanswered.length - 10} more` : ''}`,
  };
}

async function groupStates(admin: LeaderOverrideAdmin, groupIds: readonly string[], left: () => number): Promise<Map<string, { state: string; members: number | null }>> {
  const states = new Map<string, { state: string; members: number | null }>();
  for (let i = 0; i < groupIds.length; i += DESCRIBE_GROUPS_BATCH) {
    if (left() <= 0) break;
    try {
      const described = await withTimeout(admin.describeGroups(groupIds.slice(i, i + DESCRIBE_GROUPS_BATCH)), left(), 'DescribeGroups');
      for (const d of described) if (d.errorCode === 0) states.set(d.groupId, { state: d.state, members: d.members });
    } catch {
      // Undescribed groups stay "Unknown" with unknown members: the plan will not commit offsets for them.
    }
  }
  return states;
}
