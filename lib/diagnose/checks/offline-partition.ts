// offline-partition: partitions without a live leader, grouped by the down
// brokers that hold them. The host probes tell a down broker whose disk was
// wiped from one that comes back with its data.

import type { PartitionState } from '../../kafka/types.ts';
import type { Finding, OperationOffer } from '../types.ts';
import { brokerList, plural } from '../finding.ts';
import { offlineElrNote } from '../elr-notes.ts';
import { returnElectionText } from '../../operations/kinds/leader-override/elr.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { bucketEvidence, brokersWithoutData, capitalize, fromView, type MetadataView } from './metadata-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'offline-partition': true;
  }
}

/** The button of an offline finding: a leader override of its first partition. */
function leaderOverrideOffer(f: Finding): OperationOffer | undefined {
  const first = f.affected.partitions[0];
  if (!first) return undefined;
  return { label: `Plan leader override ${first.topic}-${first.partition}`, request: { kind: 'leader-override', topic: first.topic, partition: first.partition } };
}

/**
 * What the renderer words: how many partitions in how many topics, the down
 * brokers holding them and those with no data left, how many topics allow
 * unclean election, whether some partition's ISR is empty, and the partitions'
 * states with the live brokers (for the eligible-leader-replicas note).
 */
interface Facts {
  partitions: number;
  topics: number;
  down: number[];
  empty: number[];
  uncleanTopics: number;
  emptyIsr: boolean;
  states: PartitionState[];
  live: number[];
}

/** Partitions without a live leader, grouped by the down brokers that hold them. */
function detect({ probes, offline, replicasOnDeadBrokers, live }: MetadataView): Detected<Facts>[] {
  const dataless = brokersWithoutData(replicasOnDeadBrokers.keys(), probes);
  return [...offline.values()].map((b) => {
    const empty = b.brokers.filter((id) => dataless.has(id));
    return {
      finding: {
        kind: 'offline-partition',
        severity: 'critical',
        partitions: b.partitions,
        brokers: b.brokers,
        evidence: [...bucketEvidence(b), ...offlineElrNote(b.states, live).evidence, ...empty.map((id) => dataless.get(id)!)],
        identity: b.brokers.length > 0 ? b.brokers.map((id) => `broker:${id}`) : ['no-dead-replica'],
      },
      facts: {
        partitions: b.partitions.length,
        topics: b.perTopic.size,
        down: b.brokers,
        empty,
        uncleanTopics: b.uncleanTopics.size,
        emptyIsr: b.states.some((p) => p.isr.length === 0),
        states: b.states,
        live: [...live],
      },
    };
  });
}

function render({ partitions, topics, down, empty, uncleanTopics, emptyIsr, states, live }: Facts): FindingProse {
  const who = down.length > 0 ? `${brokerList(down)} (holding their replicas) ${down.length === 1 ? 'is' : 'are'} down` : 'all replicas are live but none leads';
  const elr = offlineElrNote(states, new Set(live));
  const uncleanNote =
    uncleanTopics > 0
      ? ` ${plural(uncleanTopics, 'topic')} allow unclean election, so a live out-of-sync replica may be elected with data loss.`
      : elr.lastKnownLeaderElection
        ? ' Unclean leader election is off for these topics, yet with eligible leader replicas on the controller elects the last known leader when it returns, whatever its log holds.'
        : ' Unclean leader election is off for these topics, so only a replica from the last ISR can lead without an explicit unclean election.';
  const comeBackNote =
    empty.length > 0
      ? ` ${capitalize(brokerList(empty))} ${empty.length === 1 ? 'has' : 'have'} no partition data left on disk (wiped or lost): starting ${empty.length === 1 ? 'it' : 'them'} restores nothing, and if ${empty.length === 1 ? 'it' : 'one'} led last, ${returnElectionText(emptyIsr)}, and the live replicas truncate to its empty log.`
      : down.length > 0
        ? ` Every one has a replica on ${brokerList(down)}, which is not in the live broker list; bringing it back with its data is the data-preserving fix.`
        : '';
  return {
    title: `${plural(partitions, 'partition')} offline: ${who}`,
    summary:
      `${plural(partitions, 'partition')} in ${plural(topics, 'topic')} have no live leader: producers get LEADER_NOT_AVAILABLE / NOT_LEADER and consumers stall on them.` +
      comeBackNote +
      elr.summary +
      uncleanNote,
    nextActions:
      empty.length > 0
        ? [
            `Do not start ${brokerList(empty)} yet: first plan a leader override (/kafka elect-leader <topic> <partition>) to put the live replica with the most data in charge, then start ${empty.length === 1 ? 'it' : 'them'} to re-replicate.`,
            'Compare what each live replica holds (the leader-override plan shows it) before choosing.',
            'Do not wipe or delete the log dir of any replica that still holds data.',
          ]
        : [
            ...(down.length > 0 ? [`Find out why ${brokerList(down)} is down (process, host, systemd journal) and start it; then re-run diagnose.`] : []),
            'If a broker cannot come back, run can-restart / the leader-override plan to choose which surviving replica leads, with its data-loss estimate.',
            'Do not wipe or delete the log dir of the last in-sync replica.',
          ],
  };
}

export const offlinePartitionCheck: Check = {
  kinds: ['offline-partition'],
  needs: ['metadata'],
  uses: { hosts: 'log dirs of down brokers' },
  detect: fromView((view) => detect(view).map((d) => renderFinding(d, render))),
  offer: leaderOverrideOffer,
};
