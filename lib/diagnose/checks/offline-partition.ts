// offline-partition: partitions without a live leader, grouped by the down
// brokers that hold them. The host probes tell a down broker whose disk was
// wiped from one that comes back with its data.

import type { Finding, OperationOffer } from '../types.ts';
import { brokerList, makeFinding, plural } from '../finding.ts';
import { offlineElrNote } from '../elr-notes.ts';
import { returnElectionText } from '../../operations/kinds/leader-override/elr.ts';
import type { Check } from './check.ts';
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

/** Partitions without a live leader, grouped by the down brokers that hold them. */
function offlinePartitions({ probes, offline, replicasOnDeadBrokers, live }: MetadataView): Finding[] {
  const findings: Finding[] = [];
  const dataless = brokersWithoutData(replicasOnDeadBrokers.keys(), probes);
  for (const b of offline.values()) {
    const who =
      b.brokers.length > 0
        ? `${brokerList(b.brokers)} (holding their replicas) ${b.brokers.length === 1 ? 'is' : 'are'} down`
        : 'all replicas are live but none leads';
    const elr = offlineElrNote(b.states, live);
    const uncleanNote =
      b.uncleanTopics.size > 0
        ? ` ${plural(b.uncleanTopics.size, 'topic')} allow unclean election, so a live out-of-sync replica may be elected with data loss.`
        : elr.lastKnownLeaderElection
          ? ' Unclean leader election is off for these topics, yet with eligible leader replicas on the controller elects the last known leader when it returns, whatever its log holds.'
          : ' Unclean leader election is off for these topics, so only a replica from the last ISR can lead without an explicit unclean election.';
    const empty = b.brokers.filter((id) => dataless.has(id));
    const emptyIsr = b.states.some((p) => p.isr.length === 0);
    const comeBackNote =
      empty.length > 0
        ? ` ${capitalize(brokerList(empty))} ${empty.length === 1 ? 'has' : 'have'} no partition data left on disk (wiped or lost): starting ${empty.length === 1 ? 'it' : 'them'} restores nothing, and if ${empty.length === 1 ? 'it' : 'one'} led last, ${returnElectionText(emptyIsr)}, and the live replicas truncate to its empty log.`
        : b.brokers.length > 0
          ? ` Every one has a replica on ${brokerList(b.brokers)}, which is not in the live broker list; bringing it back with its data is the data-preserving fix.`
          : '';
    findings.push(
      makeFinding({
        kind: 'offline-partition',
        severity: 'critical',
        title: `${plural(b.partitions.length, 'partition')} offline: ${who}`,
        summary:
          `${plural(b.partitions.length, 'partition')} in ${plural(b.perTopic.size, 'topic')} have no live leader: producers get LEADER_NOT_AVAILABLE / NOT_LEADER and consumers stall on them.` +
          comeBackNote +
          elr.summary +
          uncleanNote,
        partitions: b.partitions,
        brokers: b.brokers,
        evidence: [...bucketEvidence(b), ...elr.evidence, ...empty.map((id) => dataless.get(id)!)],
        identity: b.brokers.length > 0 ? b.brokers.map((id) => `broker:${id}`) : ['no-dead-replica'],
        nextActions:
          empty.length > 0
            ? [
                `Do not start ${brokerList(empty)} yet: first plan a leader override (/kafka elect-leader <topic> <partition>) to put the live replica with the most data in charge, then start ${empty.length === 1 ? 'it' : 'them'} to re-replicate.`,
                'Compare what each live replica holds (the leader-override plan shows it) before choosing.',
                'Do not wipe or delete the log dir of any replica that still holds data.',
              ]
            : [
                ...(b.brokers.length > 0 ? [`Find out why ${brokerList(b.brokers)} is down (process, host, systemd journal) and start it; then re-run diagnose.`] : []),
                'If a broker cannot come back, run can-restart / the leader-override plan to choose which surviving replica leads, with its data-loss estimate.',
                'Do not wipe or delete the log dir of the last in-sync replica.',
              ],
      }),
    );
  }
  return findings;
}

export const offlinePartitionCheck: Check = {
  kinds: ['offline-partition'],
  needs: ['metadata'],
  uses: { hosts: 'log dirs of down brokers' },
  detect: fromView(offlinePartitions),
  offer: leaderOverrideOffer,
};
