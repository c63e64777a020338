// internal-topic-unsafe (preventive, metadata): __consumer_offsets or __transaction_state below RF 3 / min ISR 2. The audit runs it.

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { minIsrOf } from '../partition-filters.ts';
import { rfOf } from './topic-facts.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'internal-topic-unsafe': true;
  }
}

export const SAFE_INTERNAL_RF = 3;

export const SAFE_INTERNAL_MIN_ISR = 2;

const INTERNAL_TOPICS = ['__consumer_offsets', '__transaction_state'];

/** What the renderer words: the internal topic, its replication factor and min.insync.replicas (null when its configs were not read). */
interface Facts {
  topic: string;
  rf: number;
  minIsr: number | null;
}

function detect({ snapshot }: CheckInput): Detected<Facts>[] {
  return snapshot.topics
    .filter((t) => INTERNAL_TOPICS.includes(t.name) && t.partitions.length > 0)
    .filter((t) => rfOf(t) < SAFE_INTERNAL_RF || (t.config !== null && minIsrOf(t) < SAFE_INTERNAL_MIN_ISR))
    .map((t) => ({
      finding: {
        kind: 'internal-topic-unsafe',
        severity: rfOf(t) < 2 ? 'error' : 'warning',
        evidence: [
          { label: 'replication factor', value: String(rfOf(t)), source: 'metadata' },
          { label: 'min.insync.replicas', value: t.config ? String(minIsrOf(t)) : 'unknown', source: 'topic configs' },
        ],
        identity: [`topic:${t.name}`],
      },
      facts: { topic: t.name, rf: rfOf(t), minIsr: t.config ? minIsrOf(t) : null },
    }));
}

function render({ topic, rf, minIsr }: Facts): FindingProse {
  return {
    title: `${topic}: replication factor ${rf}, min.insync.replicas ${minIsr ?? '?'}`,
    summary: `${topic} holds ${topic === '__consumer_offsets' ? "every group's committed offsets" : "every transaction's state"}; below RF ${SAFE_INTERNAL_RF} / min ISR ${SAFE_INTERNAL_MIN_ISR} one broker failure can stop or lose them.`,
    nextActions: [rf < SAFE_INTERNAL_RF ? `Raise its replication factor: /kafka raise-rf ${topic} 3` : `Set min.insync.replicas=2 on ${topic}.`],
  };
}

export const internalTopicUnsafeCheck: Check = {
  kinds: ['internal-topic-unsafe'],
  needs: ['metadata'],
  diagnosis: false,
  preventive: { prevents: 'every group (or transaction) stopping or losing its position with one broker' },
  detect: (input) => detect(input).map((d) => renderFinding(d, render)),
};
