// Preventive checks of topic settings, from the snapshot's metadata and topic
// configs: what makes one broker's failure lose or stop acknowledged writes.
// The audit runs them; a diagnosis does not (nothing is broken yet).

import type { Check, CheckInput } from './check.ts';
import { makeFinding } from '../finding.ts';
import { minIsrOf } from '../partition-filters.ts';
import type { Finding } from '../types.ts';
import { rfOf, topicFinding, userTopics } from './topic-facts.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'min-isr-not-below-rf': true;
    'min-isr-one': true;
    'unclean-election-enabled': true;
    'internal-topic-unsafe': true;
  }
}

export const SAFE_INTERNAL_RF = 3;
export const SAFE_INTERNAL_MIN_ISR = 2;
const INTERNAL_TOPICS = ['__consumer_offsets', '__transaction_state'];

function minIsrNotBelowRf({ snapshot }: CheckInput): Finding[] {
  return userTopics(snapshot)
    .filter((t) => t.config !== null && rfOf(t) > 1 && minIsrOf(t) >= rfOf(t))
    .map((t) =>
      topicFinding('min-isr-not-below-rf', t, {
        severity: 'warning',
        title: `Topic ${t.name}: min.insync.replicas ${minIsrOf(t)} ≥ replication factor ${rfOf(t)}`,
        summary: `With acks=all, losing any one replica of ${t.name} (a restart is enough) stops every write with NOT_ENOUGH_REPLICAS.`,
        evidence: [
          { label: 'min.insync.replicas', value: String(minIsrOf(t)), source: 'topic configs' },
          { label: 'replication factor', value: String(rfOf(t)), source: 'metadata' },
        ],
        nextActions: [`Set min.insync.replicas=${rfOf(t) - 1} on ${t.name}, or raise its replication factor.`],
      }),
    );
}

function minIsrOne({ snapshot }: CheckInput): Finding[] {
  return userTopics(snapshot)
    .filter((t) => t.config !== null && rfOf(t) >= 3 && minIsrOf(t) === 1)
    .map((t) =>
      topicFinding('min-isr-one', t, {
        severity: 'warning',
        title: `Topic ${t.name}: min.insync.replicas 1 with replication factor ${rfOf(t)}`,
        summary: `acks=all writes to ${t.name} are acknowledged by the leader alone once the ISR shrinks; if that leader is then lost, acknowledged data exists nowhere else.`,
        evidence: [{ label: 'min.insync.replicas', value: '1', source: 'topic configs' }, { label: 'replication factor', value: String(rfOf(t)), source: 'metadata' }],
        nextActions: [`Set min.insync.replicas=2 on ${t.name}.`],
      }),
    );
}

function uncleanElection({ snapshot, brokerConfigs }: CheckInput): Finding[] {
  const out = userTopics(snapshot)
    .filter((t) => t.config?.uncleanLeaderElectionEnable)
    .map((t) =>
      topicFinding('unclean-election-enabled', t, {
        severity: 'warning',
        title: `Topic ${t.name} allows unclean leader election`,
        summary: `When the ISR of a ${t.name} partition is lost, Kafka elects an out-of-sync replica by itself and truncates acknowledged writes on every replica.`,
        evidence: [{ label: 'unclean.leader.election.enable', value: 'true', source: 'topic configs' }],
        nextActions: [`Remove it: kafka-configs.sh --alter --entity-type topics --entity-name ${t.name} --delete-config unclean.leader.election.enable`],
      }),
    );
  const brokers = [...(brokerConfigs ?? [])].filter(([, c]) => c['unclean.leader.election.enable'] === 'true').map(([id]) => id);
  if (brokers.length > 0) {
    out.push(
      makeFinding({
        kind: 'unclean-election-enabled',
        severity: 'warning',
        title: `Unclean leader election is the default on ${brokers.length === 1 ? `broker ${brokers[0]}` : `brokers ${brokers.join(', ')}`}`,
        summary: 'Every topic without its own setting lets Kafka elect an out-of-sync replica and truncate acknowledged writes.',
        brokers,
        evidence: [{ label: 'unclean.leader.election.enable', value: 'true', source: 'broker configs' }],
        identity: ['default'],
        nextActions: ['Set unclean.leader.election.enable=false in every broker config (or as the dynamic cluster default).'],
      }),
    );
  }
  return out;
}

function internalTopicUnsafe({ snapshot }: CheckInput): Finding[] {
  return snapshot.topics
    .filter((t) => INTERNAL_TOPICS.includes(t.name) && t.partitions.length > 0)
    .filter((t) => rfOf(t) < SAFE_INTERNAL_RF || (t.config !== null && minIsrOf(t) < SAFE_INTERNAL_MIN_ISR))
    .map((t) =>
      makeFinding({
        kind: 'internal-topic-unsafe',
        severity: rfOf(t) < 2 ? 'error' : 'warning',
        title: `${t.name}: replication factor ${rfOf(t)}, min.insync.replicas ${t.config ? minIsrOf(t) : '?'}`,
        summary: `${t.name} holds ${t.name === '__consumer_offsets' ? "every group's committed offsets" : "every transaction's state"}; below RF ${SAFE_INTERNAL_RF} / min ISR ${SAFE_INTERNAL_MIN_ISR} one broker failure can stop or lose them.`,
        evidence: [
          { label: 'replication factor', value: String(rfOf(t)), source: 'metadata' },
          { label: 'min.insync.replicas', value: t.config ? String(minIsrOf(t)) : 'unknown', source: 'topic configs' },
        ],
        identity: [`topic:${t.name}`],
        nextActions: [rfOf(t) < SAFE_INTERNAL_RF ? `Raise its replication factor: /kafka raise-rf ${t.name} 3` : `Set min.insync.replicas=2 on ${t.name}.`],
      }),
    );
}

export const TOPIC_SETTING_CHECKS: readonly Check[] = [
  { kinds: ['min-isr-not-below-rf'], needs: ['metadata'], diagnosis: false, preventive: { prevents: 'acks=all writes stopping when any one replica is down' }, detect: minIsrNotBelowRf },
  { kinds: ['min-isr-one'], needs: ['metadata'], diagnosis: false, preventive: { prevents: 'acknowledged writes lost when an ISR of one loses its leader' }, detect: minIsrOne },
  { kinds: ['unclean-election-enabled'], needs: ['metadata'], diagnosis: false, preventive: { prevents: 'acknowledged writes truncated by an automatic unclean election' }, detect: uncleanElection },
  {
    kinds: ['internal-topic-unsafe'],
    needs: ['metadata'],
    diagnosis: false,
    preventive: { prevents: 'every group (or transaction) stopping or losing its position with one broker' },
    detect: internalTopicUnsafe,
  },
];
