// Can broker N be restarted right now? A pure assessment over the snapshot
// (and, when there is host access, that broker's probe). Modelled on Strimzi's
// canRoll (never drop a partition below min.insync.replicas, never restart a
// broker that is still recovering logs), plus what the seed outages taught:
// partitions that would go offline, and __consumer_offsets partitions whose
// groups would lose their coordinator and reload elsewhere.

import type { ClusterSnapshot, PartitionState } from '../kafka/types.ts';
import { CONSUMER_OFFSETS_TOPIC } from '../kafka/group-partition.ts';
import type { ProbeReport } from '../hosts/types.ts';
import type { TopicPartitionRef } from './types.ts';
import { isUnavailable, minIsrOf } from './partition-filters.ts';
import { plural } from './finding.ts';
import { registrationOf } from '../kafka/registered-brokers-view.ts';
import { assessControllerRestart, quorumPartOfBrokerRestart } from './controller-restart.ts';
import type { CoordinatorMove, RestartAssessment } from './restart-assessment.ts';

export type { CoordinatorMove, RestartAssessment } from './restart-assessment.ts';

/** Reasons (blockers) and notes (worth knowing) one part of the assessment adds. */
interface Facts {
  reasons: string[];
  notes: string[];
}

/** What stopping the broker does to each partition it holds. */
interface PartitionImpact {
  hostsReplicas: number;
  wouldGoOffline: TopicPartitionRef[];
  wouldFallBelowMinIsr: RestartAssessment['wouldFallBelowMinIsr'];
  coordinatorsMoving: CoordinatorMove[];
  elrTakeovers: (TopicPartitionRef & { newLeader: number })[];
}

function groupsByOffsetsPartition(snapshot: ClusterSnapshot): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const g of snapshot.groups) {
    const list = out.get(g.offsetsPartition);
    if (list) list.push(g.groupId);
    else out.set(g.offsetsPartition, [g.groupId]);
  }
  return out;
}

function partitionImpact(snapshot: ClusterSnapshot, brokerId: number, live: ReadonlySet<number>): PartitionImpact {
  const impact: PartitionImpact = { hostsReplicas: 0, wouldGoOffline: [], wouldFallBelowMinIsr: [], coordinatorsMoving: [], elrTakeovers: [] };
  const groups = groupsByOffsetsPartition(snapshot);
  for (const topic of snapshot.topics) {
    const minIsr = minIsrOf(topic);
    for (const p of topic.partitions) {
      if (!p.replicas.includes(brokerId)) continue;
      impact.hostsReplicas++;
      // Already offline: restarting this broker changes nothing for it (or brings it back).
      if (isUnavailable(p, live)) continue;
      if (!p.isr.includes(brokerId)) continue;
      const remaining = p.isr.filter((r) => r !== brokerId && live.has(r));
      const ref = { topic: topic.name, partition: p.partition };
      const elrTakeover = remaining.length === 0 ? liveElrSuccessor(p, brokerId, live) : null;
      if (remaining.length === 0 && elrTakeover === null) impact.wouldGoOffline.push(ref);
      else if (elrTakeover !== null) {
        // The controller elects an ELR member cleanly, with an ISR of just that member.
        impact.elrTakeovers.push({ ...ref, newLeader: elrTakeover });
        if (1 < minIsr) impact.wouldFallBelowMinIsr.push({ ...ref, isr: 1, minIsr });
      } else if (remaining.length < minIsr) impact.wouldFallBelowMinIsr.push({ ...ref, isr: remaining.length, minIsr });
      if (topic.name === CONSUMER_OFFSETS_TOPIC && p.leader === brokerId) {
        impact.coordinatorsMoving.push({ offsetsPartition: p.partition, newLeader: remaining[0] ?? null, groups: (groups.get(p.partition) ?? []).sort() });
      }
    }
  }
  return impact;
}

/** Is the broker part of the cluster, and is it already out of service? */
function membershipFacts(snapshot: ClusterSnapshot, brokerId: number, live: ReadonlySet<number>, hostsReplicas: number): Facts {
  const reasons: string[] = [];
  const notes: string[] = [];
  const registration = registrationOf(snapshot, brokerId);
  const known = live.has(brokerId) || hostsReplicas > 0 || snapshot.unreachableBrokers.includes(brokerId) || registration === 'fenced';
  if (!known) reasons.push(`Broker ${brokerId} is not part of this cluster (live brokers: ${[...live].sort((a, b) => a - b).join(', ') || 'none'}).`);
  if (!live.has(brokerId) && known) {
    notes.push(
      registration === 'fenced'
        ? `Broker ${brokerId} is registered but fenced: it does not heartbeat to the controller (stopped, crashed, cut off from the controllers, or still starting), so it is already out of service and restarting it cannot reduce availability further; if its process is gone, start it rather than restart it.`
        : registration === 'not-registered'
          ? `Broker ${brokerId} is not registered with the controller (unregistered, or never started with this id): it is already down, so restarting it cannot reduce availability further.`
          : `Broker ${brokerId} is not in the live broker list: it is already down, so restarting it cannot reduce availability further.`,
    );
  }
  return { reasons, notes };
}

function impactFacts(snapshot: ClusterSnapshot, brokerId: number, impact: PartitionImpact): Facts {
  const reasons: string[] = [];
  const notes: string[] = [];
  const { wouldGoOffline, elrTakeovers, wouldFallBelowMinIsr } = impact;
  const elrKnown = snapshot.partitionSource === 'DescribeTopicPartitions';
  if (wouldGoOffline.length > 0) {
    reasons.push(
      `${plural(wouldGoOffline.length, 'partition')} would go offline: broker ${brokerId} is their only live in-sync replica` +
        `${elrKnown ? ' and no live eligible leader replica (ELR) could take over' : ''} (${sample(wouldGoOffline)}).`,
    );
  }
  if (elrTakeovers.length > 0) {
    notes.push(
      `${plural(elrTakeovers.length, 'partition')} would be led by an eligible leader replica (ELR, not in the ISR but holding every committed write): ` +
        `${elrTakeovers.slice(0, 5).map((r) => `${r.topic}-${r.partition} → broker ${r.newLeader}`).join(', ')}${elrTakeovers.length > 5 ? ` … +${elrTakeovers.length - 5}` : ''}.`,
    );
  }
  if (wouldFallBelowMinIsr.length > 0) {
    reasons.push(`${plural(wouldFallBelowMinIsr.length, 'partition')} would fall below min.insync.replicas and reject acks=all writes (${sample(wouldFallBelowMinIsr)}).`);
  }
  return { reasons, notes };
}

/** Log recovery and offsets loads on the broker's host (null: no host access to tell). */
function recoveryFacts(brokerId: number, probe: ProbeReport | null | undefined): Facts & { recovering: boolean | null } {
  if (!probe) return { reasons: [], notes: ['Log recovery state not checked: no host access for this broker.'], recovering: null };
  const reasons: string[] = [];
  const loading = probe.consumerOffsets.filter((c) => c.loading).map((c) => c.partition);
  if (probe.recoveryInProgress) reasons.push(`Broker ${brokerId} is still recovering logs; restarting now starts recovery over and prolongs the outage.`);
  if (loading.length > 0) reasons.push(`Broker ${brokerId} is still loading ${loading.map((p) => `${CONSUMER_OFFSETS_TOPIC}-${p}`).join(', ')}.`);
  return { reasons, notes: [], recovering: probe.recoveryInProgress || loading.length > 0 };
}

/**
 * Incident 2: restarting every holder of a __consumer_offsets partition at once
 * leaves all of them loading. If another holder is already out of the ISR, this
 * restart leaves the partition's groups with nobody ready to coordinate.
 */
function coordinatorFacts(snapshot: ClusterSnapshot, coordinatorsMoving: readonly CoordinatorMove[]): Facts {
  const notes = coordinatorsMoving
    .filter((move) => move.groups.length > 0)
    .map(
      (move) =>
        `${CONSUMER_OFFSETS_TOPIC}-${move.offsetsPartition}: coordinator moves to ${move.newLeader === null ? 'no broker' : `broker ${move.newLeader}`}; ${plural(move.groups.length, 'group')} pause while it loads.`,
    );
  const reasons =
    coordinatorsMoving.length > 0 && snapshot.groups.some((g) => g.error && [14, 15, 16].includes(g.error.code))
      ? ['Some consumer groups are already waiting for a coordinator load; restarting a broker that leads __consumer_offsets partitions adds more loads.']
      : [];
  return { reasons, notes };
}

/** Other brokers already down or not answering: one restart at a time, on a healthy cluster. */
function otherBrokersFacts(snapshot: ClusterSnapshot, brokerId: number, live: ReadonlySet<number>): Facts {
  const reasons: string[] = [];
  const notes: string[] = [];
  const replicaHolders = new Set<number>();
  for (const t of snapshot.topics) for (const p of t.partitions) for (const r of p.replicas) replicaHolders.add(r);
  const othersNotLive = [...replicaHolders].filter((b) => b !== brokerId && !live.has(b)).sort((a, b) => a - b);
  if (othersNotLive.length > 0) {
    const fencedOthers = othersNotLive.filter((b) => registrationOf(snapshot, b) === 'fenced');
    const state = fencedOthers.length === othersNotLive.length ? ' (registered but fenced: not heartbeating to the controller)' : fencedOthers.length > 0 ? ` (fenced, not heartbeating: ${fencedOthers.join(', ')})` : '';
    notes.push(`Broker${othersNotLive.length > 1 ? 's' : ''} ${othersNotLive.join(', ')} ${othersNotLive.length > 1 ? 'are' : 'is'} down${state}; the partition checks above already count that, but bring ${othersNotLive.length > 1 ? 'them' : 'it'} back first if you can.`);
  }
  const othersDown = snapshot.unreachableBrokers.filter((b) => b !== brokerId);
  if (othersDown.length > 0) {
    const registered = snapshot.registeredBrokers?.status === 'read' && othersDown.every((b) => registrationOf(snapshot, b) === 'live');
    reasons.push(
      `Other brokers are not answering (${othersDown.join(', ')})${registered ? ', although the controller counts them as live and unfenced (the network path to them or their request handling; a stopped process only if it stopped less than a broker session timeout ago)' : ''}: restart one broker at a time, and only on a healthy cluster.`,
    );
  }
  return { reasons, notes };
}

export function assessRestart(snapshot: ClusterSnapshot, brokerId: number, probe?: ProbeReport | null): RestartAssessment {
  // A KRaft controller is judged by what its stop costs the metadata quorum.
  const controller = assessControllerRestart(snapshot, brokerId);
  if (controller) return controller;
  const live = new Set(snapshot.brokers.map((b) => b.id));
  const impact = partitionImpact(snapshot, brokerId, live);
  const recovery = recoveryFacts(brokerId, probe);
  const parts = [
    membershipFacts(snapshot, brokerId, live, impact.hostsReplicas),
    impactFacts(snapshot, brokerId, impact),
    recovery,
    coordinatorFacts(snapshot, impact.coordinatorsMoving),
    otherBrokersFacts(snapshot, brokerId, live),
  ];
  // No restart while the quorum has no leader; a combined node is also judged as a voter.
  const quorum = quorumPartOfBrokerRestart(snapshot, brokerId);
  const reasons = [...quorum.reasons, ...parts.flatMap((p) => p.reasons)];
  const notes = [...parts.flatMap((p) => p.notes), ...quorum.notes];
  if (snapshot.partial) reasons.push('The cluster snapshot is incomplete, so a safe answer cannot be given.');
  else if (snapshot.topicFilter && snapshot.topicFilter.length > 0) reasons.push('The snapshot covers only some topics; assess with all topics.');

  return {
    brokerId,
    verdict: reasons.length === 0 ? 'yes' : 'no',
    reasons,
    wouldGoOffline: impact.wouldGoOffline,
    wouldFallBelowMinIsr: impact.wouldFallBelowMinIsr,
    coordinatorsMoving: impact.coordinatorsMoving,
    recovering: recovery.recovering,
    notes,
  };
}

/**
 * With ELR read (KIP-966), the controller elects a live ELR member cleanly once
 * the ISR is empty (PartitionChangeBuilder.isValidNewLeader, Kafka 3.8 to 4.4):
 * the first in assignment order. null when none is live, or ELR is unknown.
 */
function liveElrSuccessor(p: PartitionState, brokerId: number, live: ReadonlySet<number>): number | null {
  if (!p.elr) return null;
  return p.replicas.find((r) => r !== brokerId && p.elr!.includes(r) && live.has(r)) ?? null;
}

function sample(refs: readonly TopicPartitionRef[], max = 5): string {
  const shown = refs.slice(0, max).map((r) => `${r.topic}-${r.partition}`);
  return shown.join(', ') + (refs.length > max ? ` … +${refs.length - max}` : '');
}
