// The leader override's plan, once the replica is chosen (plan.ts):
// the new assignment, the steps, and the warnings the approvers read.

import type { PartitionState } from '../../../kafka/types.ts';
import { tpName } from '../../../kafka/partitions.ts';
import { andMore } from '../../../runtime/format.ts';
import { elrHolders, elrReturnRole } from './elr.ts';
import type { Notice } from '../../failures.ts';
import type { GroupBeyondEnd, LossUnit, PlanStep, ReplicaData, TopicPartition } from '../../types.ts';

/** What one replica's log says about transactions (DescribeProducers on it). */
export interface ReplicaTransactions {
  brokerId: number;
  /** Transactional producers with state in this replica's log; null when it could not be asked. */
  producers: number | null;
  /** Transactions open in this replica's log, each from its first offset. */
  open: { producerId: number; producerEpoch: number; firstOffset: number }[];
  error: string | null;
}

/** The replica Kafka's own unclean election would take: the first live one in assignment order. */
export function defaultUncleanChoice(p: PartitionState, live: ReadonlySet<number>): number | null {
  return p.replicas.find((r) => live.has(r)) ?? null;
}

export interface NewAssignment {
  /** The election takes the first live replica: a reorder is needed only when that is not the chosen one. */
  reorder: boolean;
  replicas: number[];
  /** Dead replicas that leave the list (the reassignment accepts only live brokers). */
  dropped: number[];
}

export function newAssignment(p: PartitionState, live: ReadonlySet<number>, chosen: number): NewAssignment {
  if (defaultUncleanChoice(p, live) === chosen) return { reorder: false, replicas: p.replicas, dropped: [] };
  return {
    reorder: true,
    replicas: [chosen, ...p.replicas.filter((r) => r !== chosen && live.has(r))],
    dropped: p.replicas.filter((r) => r !== chosen && !live.has(r)),
  };
}

export function overrideSteps(tp: TopicPartition, chosen: number, a: NewAssignment, beyond: readonly GroupBeyondEnd[]): PlanStep[] {
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
  // What ends the outage comes first; restoring replicas and committing offsets can wait for it.
  steps.push({ action: 'verify-writable', description: `verify ${name} takes acks=all writes (its ISR holds min.insync.replicas)`, ...tp, leader: chosen });
  if (a.reorder) steps.push({ action: 'wait-reassignment', description: `wait until the reorder of ${name} completes`, reassignStep: 0 });
  const idle = beyond.filter((g) => g.committedByPlan).map((g) => g.groupId);
  if (idle.length) {
    steps.push({
      action: 'commit-offsets',
      description:
        `commit ${idle.length === 1 ? '1 consumer group' : `${idle.length} consumer groups`} without active members at broker ${chosen}'s new log end on ${name}, ` +
        `where their committed offset lies beyond it (read after the election), so they resume there instead of resetting: ` +
        andMore(idle, 10),
      ...tp,
      groups: idle,
    });
  }
  return steps;
}

/**
 * Only what the headline, the replica table and the consumer-group lines do
 * not already say (each fact once): an unmeasured or wiped replica is in the
 * loss headline and its table row, groups beyond the end in their section.
 */
export function overrideWarnings({ p, live, unit }: { p: PartitionState; live: ReadonlySet<number>; unit: LossUnit }, a: NewAssignment): Notice[] {
  const warnings: Notice[] = [];
  if (a.dropped.length) warnings.push({ code: 'replicas-dropped', brokers: a.dropped, from: p.replicas.length, to: a.replicas.length });
  // The dead holder coming back first is what destroys the data (LEADER-OVERRIDE.md, "The danger").
  const fromElr = p.isr.length ? null : elrHolders(p)?.map((h) => h.brokerId).filter((r) => !live.has(r));
  const dead = (p.isr.length ? p.isr : (fromElr ?? p.replicas)).filter((r) => !live.has(r));
  if (dead.length) {
    const elrRole = fromElr?.length ? elrReturnRole(p, fromElr[0]!) : null;
    warnings.push({ code: 'do-not-start', brokers: dead, isrKnown: p.isr.length > 0, ...(elrRole ? { elrRole } : {}) });
  }
  if (unit === 'bytes') warnings.push({ code: 'loss-in-bytes' });
  return warnings;
}

/**
 * Transactions and truncation, said to approvers: an open transaction in the
 * chosen replica's log whose COMMIT/ABORT marker may have been only on the
 * lost tail hangs once it leads (read_committed consumers stop at its first
 * offset); transactional producers elsewhere mean the truncation may drop markers.
 */
export function transactionWarnings(tp: TopicPartition, chosen: number, txns: readonly ReplicaTransactions[] | undefined): Notice[] {
  if (!txns || txns.length === 0) return [];
  const name = tpName(tp);
  const mine = txns.find((t) => t.brokerId === chosen);
  if (!mine || mine.producers === null) return [{ code: 'transactions-unknown', partition: name, broker: chosen, error: mine?.error ?? 'not asked' }];
  if (mine.open.length > 0) return [{ code: 'open-transactions-on-replica', partition: name, broker: chosen, transactions: mine.open }];
  const elsewhere = txns.filter((t) => t.brokerId !== chosen && (t.producers ?? 0) > 0).map((t) => t.brokerId);
  if (mine.producers > 0 || elsewhere.length > 0) return [{ code: 'transactional-producers', partition: name, broker: chosen, brokers: elsewhere }];
  return [];
}

/**
 * The old leader's own account, read on its host while it is down: COMMIT/ABORT
 * markers at or past the chosen replica's end are on the tail the election
 * drops, so the transactions they closed stay open on the new leader.
 */
export function lostMarkerWarnings(tp: TopicPartition, chosen: number, data: ReadonlyMap<number, ReplicaData>): Notice[] {
  const end = data.get(chosen)?.logEndOffset;
  if (typeof end !== 'number') return [];
  const out: Notice[] = [];
  for (const [broker, d] of data) {
    if (broker === chosen) continue;
    const lost = (d.lastSegmentTransactions?.markers ?? []).filter((m) => m.offset >= end);
    if (lost.length === 0) continue;
    const producers = [...new Set(lost.map((m) => m.producerId))].slice(0, 5);
    out.push({ code: 'markers-on-lost-tail', partition: tpName(tp), broker, from: chosen, markers: lost.length, producers, firstOffset: Math.min(...lost.map((m) => m.offset)) });
  }
  return out;
}

/** After the election: check the partition for hanging transactions, when the plan saw transactional producers. */
export function transactionCheckStep(tp: TopicPartition, chosen: number, txns: readonly ReplicaTransactions[] | undefined, data?: ReadonlyMap<number, ReplicaData>): PlanStep[] {
  const onHosts = [...(data?.values() ?? [])].some((d) => (d.lastSegmentTransactions?.markers.length ?? 0) > 0 || (d.lastSegmentTransactions?.open.length ?? 0) > 0);
  const seen = onHosts || (txns ?? []).some((t) => (t.producers ?? 0) > 0 || t.open.length > 0);
  if (!seen) return [];
  return [{ action: 'check-transactions', description: `check ${tpName(tp)} for hanging transactions now that broker ${chosen} leads`, topic: tp.topic, partition: tp.partition }];
}

/** The leader-override notice codes, for the renderer. */
