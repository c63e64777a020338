// replication-factor-one: partitions that live on one broker, so that no
// election can save them when it stops. One check for both profiles, which
// report it at different grains (each profile's tests hold it):
// - diagnosis: one warning naming every partition with one replica (internal
//   topics included), counted from the metadata pass the other partition
//   checks share;
// - preventive audit: one error per user topic whose replication factor is 1,
//   each with the failure it prevents, so the scheduled run's diff names the
//   topic that appeared.
// Either way the finding offers to raise its (first) topic to 3 replicas.

import type { Check, CheckInput } from './check.ts';
import { MAX_EVIDENCE_SAMPLES, makeFinding, plural } from '../finding.ts';
import type { Finding, OperationOffer } from '../types.ts';
import { metadataView } from './metadata-view.ts';
import { rfOf, topicFinding, userTopics } from './topic-facts.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'replication-factor-one': true;
  }
}

const TARGET_RF = 3;

/** Either grain's button: raise the first affected topic to three replicas. */
function raiseOffer(f: Finding): OperationOffer | undefined {
  const topic = f.affected.partitions[0]?.topic;
  if (topic === undefined) return undefined;
  return { label: `Plan raise RF of ${topic} to ${TARGET_RF}`, request: { kind: 'raise-replication-factor', topic, replicationFactor: TARGET_RF } };
}

/** Diagnosis: every RF=1 partition in one finding. */
function allPartitions(input: CheckInput): Finding[] {
  const rf1 = metadataView(input).rfOne.get('');
  if (!rf1) return [];
  const topics = [...rf1.perTopic.keys()].sort();
  return [
    makeFinding({
      kind: 'replication-factor-one',
      severity: 'warning',
      title: `${plural(topics.length, 'topic')} with replication factor 1 (${plural(rf1.partitions.length, 'partition')})`,
      summary:
        'These partitions exist on exactly one broker: stopping or losing that broker takes them offline and no election can help. ' +
        'Move them before any broker maintenance, or raise the replication factor.',
      partitions: rf1.partitions,
      evidence: [
        { label: 'topics', value: topics.slice(0, MAX_EVIDENCE_SAMPLES).join(', ') + (topics.length > MAX_EVIDENCE_SAMPLES ? ` … (+${topics.length - MAX_EVIDENCE_SAMPLES})` : ''), source: 'metadata' },
        ...rf1.samples.map((s) => ({ label: 'partition', value: s, source: 'metadata' })),
      ],
      identity: topics.map((t) => `topic:${t}`),
      nextActions: [
        'Before stopping a broker, reassign its RF=1 partitions elsewhere (kafka-reassign-partitions.sh).',
        `Raise the replication factor to ${TARGET_RF} with a reassignment that adds replicas.`,
      ],
    }),
  ];
}

/** Preventive audit: one finding per user topic. */
function perTopic({ snapshot }: CheckInput): Finding[] {
  return userTopics(snapshot)
    .filter((t) => rfOf(t) === 1)
    .map((t) =>
      topicFinding('replication-factor-one', t, {
        severity: 'error',
        title: `Topic ${t.name} has replication factor 1`,
        summary: `Every partition of ${t.name} lives on one broker: if that broker fails or is removed, its partitions go offline and there is no other copy to elect.`,
        evidence: [{ label: 'replication factor', value: '1', source: 'metadata' }, { label: 'partitions', value: String(t.partitions.length), source: 'metadata' }],
        nextActions: [`Raise it: /kafka raise-rf ${t.name} ${TARGET_RF}`],
      }),
    );
}

export const replicationFactorOneCheck: Check = {
  kinds: ['replication-factor-one'],
  needs: ['metadata'],
  preventive: { prevents: 'partitions offline with no copy to elect when their only broker fails or is removed' },
  detect: (input) => (input.profile === 'preventive' ? perTopic(input) : allPartitions(input)),
  offer: raiseOffer,
};
