// min-isr-one (preventive, topic configs): min.insync.replicas=1 on a replicated topic. The audit runs it.

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { minIsrOf } from '../partition-filters.ts';
import { rfOf, topicParts, userTopics } from './topic-facts.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'min-isr-one': true;
  }
}

/** What the renderer words: the topic and its replication factor (its min.insync.replicas is 1). */
interface Facts {
  topic: string;
  rf: number;
}

function detect({ snapshot }: CheckInput): Detected<Facts>[] {
  return userTopics(snapshot)
    .filter((t) => t.config !== null && rfOf(t) >= 3 && minIsrOf(t) === 1)
    .map((t) => ({
      finding: {
        ...topicParts('min-isr-one', t),
        severity: 'warning',
        evidence: [
          { label: 'min.insync.replicas', value: '1', source: 'topic configs' },
          { label: 'replication factor', value: String(rfOf(t)), source: 'metadata' },
        ],
      },
      facts: { topic: t.name, rf: rfOf(t) },
    }));
}

function render({ topic, rf }: Facts): FindingProse {
  return {
    title: `Topic ${topic}: min.insync.replicas 1 with replication factor ${rf}`,
    summary: `acks=all writes to ${topic} are acknowledged by the leader alone once the ISR shrinks; if that leader is then lost, acknowledged data exists nowhere else.`,
    nextActions: [`Set min.insync.replicas=2 on ${topic}.`],
  };
}

export const minIsrOneCheck: Check = { kinds: ['min-isr-one'], needs: ['metadata'], diagnosis: false, preventive: { prevents: 'acknowledged writes lost when an ISR of one loses its leader' }, detect: (input) => detect(input).map((d) => renderFinding(d, render)) };
