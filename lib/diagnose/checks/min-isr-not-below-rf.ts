// min-isr-not-below-rf (preventive, topic configs): min.insync.replicas not below the replication factor, so any one replica down stops acks=all writes. The audit runs it.

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { minIsrOf } from '../partition-filters.ts';
import { rfOf, topicParts, userTopics } from './topic-facts.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'min-isr-not-below-rf': true;
  }
}

/** What the renderer words: the topic, its min.insync.replicas and replication factor. */
interface Facts {
  topic: string;
  minIsr: number;
  rf: number;
}

function detect({ snapshot }: CheckInput): Detected<Facts>[] {
  return userTopics(snapshot)
    .filter((t) => t.config !== null && rfOf(t) > 1 && minIsrOf(t) >= rfOf(t))
    .map((t) => ({
      finding: {
        ...topicParts('min-isr-not-below-rf', t),
        severity: 'warning',
        evidence: [
          { label: 'min.insync.replicas', value: String(minIsrOf(t)), source: 'topic configs' },
          { label: 'replication factor', value: String(rfOf(t)), source: 'metadata' },
        ],
      },
      facts: { topic: t.name, minIsr: minIsrOf(t), rf: rfOf(t) },
    }));
}

function render({ topic, minIsr, rf }: Facts): FindingProse {
  return {
    title: `Topic ${topic}: min.insync.replicas ${minIsr} ≥ replication factor ${rf}`,
    summary: `With acks=all, losing any one replica of ${topic} (a restart is enough) stops every write with NOT_ENOUGH_REPLICAS.`,
    nextActions: [`Set min.insync.replicas=${rf - 1} on ${topic}, or raise its replication factor.`],
  };
}

export const minIsrNotBelowRfCheck: Check = { kinds: ['min-isr-not-below-rf'], needs: ['metadata'], diagnosis: false, preventive: { prevents: 'acks=all writes stopping when any one replica is down' }, detect: (input) => detect(input).map((d) => renderFinding(d, render)) };
