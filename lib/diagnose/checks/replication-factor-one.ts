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

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { MAX_EVIDENCE_SAMPLES, plural } from '../finding.ts';
import type { Finding, OperationOffer } from '../types.ts';
import { metadataView } from './metadata-view.ts';
import { rfOf, topicParts, userTopics } from './topic-facts.ts';

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

/** What the renderer words: the RF=1 topics and partitions across the cluster (diagnosis), or one topic (audit). */
type Facts = { scope: 'cluster'; topics: number; partitions: number } | { scope: 'topic'; topic: string };

/** Diagnosis: every RF=1 partition in one finding. */
function allPartitions(input: CheckInput): Detected<Facts>[] {
  const rf1 = metadataView(input).rfOne.get('');
  if (!rf1) return [];
  const topics = [...rf1.perTopic.keys()].sort();
  const evidence = [
    { label: 'topics', value: topics.slice(0, MAX_EVIDENCE_SAMPLES).join(', ') + (topics.length > MAX_EVIDENCE_SAMPLES ? ` … (+${topics.length - MAX_EVIDENCE_SAMPLES})` : ''), source: 'metadata' },
    ...rf1.samples.map((s) => ({ label: 'partition', value: s, source: 'metadata' })),
  ];
  return [
    {
      finding: { kind: 'replication-factor-one', severity: 'warning', partitions: rf1.partitions, evidence, identity: topics.map((t) => `topic:${t}`) },
      facts: { scope: 'cluster', topics: topics.length, partitions: rf1.partitions.length },
    },
  ];
}

/** Preventive audit: one finding per user topic. */
function perTopic({ snapshot }: CheckInput): Detected<Facts>[] {
  return userTopics(snapshot)
    .filter((t) => rfOf(t) === 1)
    .map((t) => ({
      finding: {
        ...topicParts('replication-factor-one', t),
        severity: 'error',
        evidence: [
          { label: 'replication factor', value: '1', source: 'metadata' },
          { label: 'partitions', value: String(t.partitions.length), source: 'metadata' },
        ],
      },
      facts: { scope: 'topic', topic: t.name },
    }));
}

function render(facts: Facts): FindingProse {
  if (facts.scope === 'topic') {
    const { topic } = facts;
    return {
      title: `Topic ${topic} has replication factor 1`,
      summary: `Every partition of ${topic} lives on one broker: if that broker fails or is removed, its partitions go offline and there is no other copy to elect.`,
      nextActions: [`Raise it: /kafka raise-rf ${topic} ${TARGET_RF}`],
    };
  }
  return {
    title: `${plural(facts.topics, 'topic')} with replication factor 1 (${plural(facts.partitions, 'partition')})`,
    summary:
      'These partitions exist on exactly one broker: stopping or losing that broker takes them offline and no election can help. ' +
      'Move them before any broker maintenance, or raise the replication factor.',
    nextActions: ['Before stopping a broker, reassign its RF=1 partitions elsewhere (kafka-reassign-partitions.sh).', `Raise the replication factor to ${TARGET_RF} with a reassignment that adds replicas.`],
  };
}

export const replicationFactorOneCheck: Check = {
  kinds: ['replication-factor-one'],
  needs: ['metadata'],
  preventive: { prevents: 'partitions offline with no copy to elect when their only broker fails or is removed' },
  detect: (input) => (input.profile === 'preventive' ? perTopic(input) : allPartitions(input)).map((d) => renderFinding(d, render)),
  offer: raiseOffer,
};
