// What eligible leader replicas (KIP-966) say about a leaderless partition,
// for the leader override's loss estimate and warnings and for the diagnosis:
// pure functions of one PartitionState (ELR read by DescribeTopicPartitions;
// `elr` absent = unknown).
//
// From Kafka's controller (metadata/…/controller/PartitionChangeBuilder.java
// and ReplicationControlManager.java, read at 4.1.1 and in the 4.0.0-4.4.0 jars;
// both 4.1.1 timings seen on the sandbox, test/kafka/elr.int.test.ts):
// - When the ISR shrinks below min.insync.replicas, the members it loses join
//   the ELR: they hold every committed write and may be elected cleanly once
//   the ISR is empty. An unclean shutdown takes a broker out of the ELR when it
//   registers again.
// - When the partition loses its last leader, that leader is kept as the last
//   known ELR (useLastKnownLeaderInBalancedRecovery, always on in 4.x). With
//   the ISR and ELR empty, any election elects it if it is live, even with
//   unclean election disabled (canElectLastKnownLeader), as an unclean
//   election: the ISR becomes just it, and the others truncate to its log.
//   When: every election accepts it only if the partition's recorded log
//   directory for it is online (LeaderAcceptor). A wiped broker has a new
//   directory id, recorded once it reports it (AssignReplicasToDirs); that
//   report elects nobody (its acceptor checks the old directory, 4.0-4.4 alike,
//   though from 4.3 the report's builder has ELR on), so the next election
//   after it does: the unfencing if the report came first, else the periodic
//   preferred-leader check (electPreferred, a leaderless partition counts as
//   imbalanced).

import type { PartitionState } from '../../../kafka/types.ts';
import type { UnseenHolder } from '../../types.ts';

export interface ElrHolder {
  brokerId: number;
  role: UnseenHolder['role'];
  /** Held the longest log of all: the last leader, or a sole member. */
  longest: boolean;
}

const ids = (xs: readonly number[]) => `[${xs.join(',')}]`;

/** "ISR empty, ELR [3], last known ELR [1]"; null when ELR was not read. */
export function elrStateText(p: Pick<PartitionState, 'isr' | 'elr' | 'lastKnownElr'>): string | null {
  if (!p.elr) return null;
  return [`ISR ${p.isr.length ? ids(p.isr) : 'empty'}`, `ELR ${p.elr.length ? ids(p.elr) : 'empty'}`, `last known ELR ${p.lastKnownElr?.length ? ids(p.lastKnownElr) : 'empty'}`].join(', ');
}

/**
 * Who may hold the acknowledged data when the ISR is empty, from ELR: ELR
 * members hold every committed write (as the last ISR did), the last known
 * leader held the longest log. null when that cannot be said (ELR unknown,
 * the ISR is not empty, or both lists are empty): the caller then falls back
 * to what Metadata allows.
 */
export function elrHolders(p: PartitionState): ElrHolder[] | null {
  if (!p.elr || p.isr.length > 0) return null;
  const lastKnown = p.lastKnownElr ?? [];
  if (p.elr.length === 0 && lastKnown.length === 0) return null;
  const out: ElrHolder[] = lastKnown.map((brokerId) => ({ brokerId, role: 'last-leader', longest: lastKnown.length === 1 }));
  for (const brokerId of p.elr) {
    if (!lastKnown.includes(brokerId)) out.push({ brokerId, role: 'last-isr', longest: lastKnown.length === 0 && p.elr.length === 1 });
  }
  return out;
}

export type ElrReturnRole = 'last-known-leader' | 'eligible-leader-replica';

/** Why this down replica is dangerous to bring back first, in the partition's ELR terms; null without ELR. */
export function elrReturnRole(p: PartitionState, brokerId: number): ElrReturnRole | null {
  if (!p.elr || p.isr.length > 0) return null;
  if (p.lastKnownElr?.includes(brokerId)) return 'last-known-leader';
  if (p.elr.includes(brokerId)) return 'eligible-leader-replica';
  return null;
}

/** The renderer's words for an ElrReturnRole. */
export const ELR_ROLE_TEXT: Record<ElrReturnRole, string> = {
  'last-known-leader': 'it is the last known leader (last known ELR)',
  'eligible-leader-replica': 'it is an eligible leader replica (ELR)',
};

/**
 * When the controller elects a returning replica that was the partition's last
 * leader. `emptyIsr`: the ISR is empty (ELR on, Kafka 4.x); otherwise the ISR
 * still names the dead member (ZooKeeper mode, or KRaft without ELR). The same
 * on 4.1.1 and 4.4.0, in the source and on the sandbox: the unfencing elects it
 * if the controller knows its replica's log directory by then (always so with
 * its disk intact; a wiped disk's new directory id arrives when the broker
 * recreates the log, racing the unfencing), otherwise the periodic
 * preferred-leader check does.
 */
export function returnElectionText(emptyIsr: boolean): string {
  // A wiped disk has a new log directory id, reported a moment after the start: the election at unfencing skips it.
  const when = 'about a second after it starts, or, if its disk was wiped, at the next preferred-leader check (leader.imbalance.check.interval.seconds, 300 s by default)';
  return emptyIsr
    ? `the controller elects it as the last known leader even with unclean election disabled (Kafka 4.x): ${when}`
    : 'the controller elects it even with unclean election disabled, since it is still in the ISR: ' +
        `in ZooKeeper mode as soon as it registers; in KRaft ${when}`;
}
