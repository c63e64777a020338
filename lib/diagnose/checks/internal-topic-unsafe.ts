// internal-topic-unsafe (preventive, metadata): __consumer_offsets or __transaction_state below RF 3 / min ISR 2. The audit runs it.

import type { Check, CheckInput } from './check.ts';
import { makeFinding } from '../finding.ts';
import { minIsrOf } from '../partition-filters.ts';
import type { Finding } from '../types.ts';
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

export const internalTopicUnsafeCheck: Check = {
  kinds: ['internal-topic-unsafe'],
  needs: ['metadata'],
  diagnosis: false,
  preventive: { prevents: 'every group (or transaction) stopping or losing its position with one broker' },
  detect: internalTopicUnsafe,
};
