// Small facts about topics that the preventive checks share: a topic's
// replication factor, the user topics, and the coded parts of a finding about one whole topic.

import type { ClusterSnapshot, TopicState } from '../../kafka/types.ts';
import type { FindingInput } from '../finding.ts';
import type { FindingKind } from '../types.ts';

/** The least replica count over the topic's partitions (0 for a topic without partitions). */
export function rfOf(t: TopicState): number {
  let rf = Infinity;
  for (const p of t.partitions) rf = Math.min(rf, p.replicas.length);
  return rf === Infinity ? 0 : rf;
}

export const userTopics = (s: ClusterSnapshot): TopicState[] => s.topics.filter((t) => !t.internal && t.partitions.length > 0);

/** The coded parts of a finding about one whole topic: every partition affected, the topic its identity. */
export function topicParts(kind: FindingKind, t: TopicState): Pick<FindingInput, 'kind' | 'identity' | 'partitions'> {
  return { kind, identity: [`topic:${t.name}`], partitions: t.partitions.map((p) => ({ topic: t.name, partition: p.partition })) };
}

