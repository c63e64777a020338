// The answer to "can node N restart now?", as every renderer, the restart
// operation and the CLI read it: a broker's (can-restart.ts) and a KRaft
// controller's (controller-restart.ts) alike.

import type { TopicPartitionRef } from './types.ts';

export interface CoordinatorMove {
  offsetsPartition: number;
  /** Next in-sync replica that would take over (and reload the partition), or null if none. */
  newLeader: number | null;
  groups: string[];
}

export interface RestartAssessment {
  /** The node asked about (a broker's id, or a KRaft controller's). */
  brokerId: number;
  /** What it is: a broker (absent: older answers), a KRaft controller (controller-restart.ts), or a node the quorum cannot place now. */
  role?: 'broker' | 'controller' | 'node';
  verdict: 'yes' | 'no';
  /** Why, most important first. A "no" always has at least one reason. */
  reasons: string[];
  /** Partitions whose only in-sync replica is this broker: no leader while it is down. */
  wouldGoOffline: TopicPartitionRef[];
  /** Partitions that keep a leader but drop below min.insync.replicas (acks=all writes fail). */
  wouldFallBelowMinIsr: (TopicPartitionRef & { isr: number; minIsr: number })[];
  coordinatorsMoving: CoordinatorMove[];
  /** Log recovery or an offsets load is running on the broker (null: no host access to tell). */
  recovering: boolean | null;
  /** Things that are not blockers but worth knowing. */
  notes: string[];
}

/** The word for the node an answer is about, for renderers: broker, controller, or node. */
export const restartNoun = (a: Pick<RestartAssessment, 'role'>): string => a.role ?? 'broker';
/** An answer about a broker (its partitions, its log recovery, a drain to offer). */
export const isBrokerAnswer = (a: Pick<RestartAssessment, 'role'>): boolean => (a.role ?? 'broker') === 'broker';
