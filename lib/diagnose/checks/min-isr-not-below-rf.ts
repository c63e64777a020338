// min-isr-not-below-rf (preventive, topic configs): min.insync.replicas not below the replication factor, so any one replica down stops acks=all writes. The audit runs it.

import type { Check, CheckInput } from './check.ts';
import { minIsrOf } from '../partition-filters.ts';
import type { Finding } from '../types.ts';
import { rfOf, topicFinding, userTopics } from './topic-facts.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'min-isr-not-below-rf': true;
  }
}

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

export const minIsrNotBelowRfCheck: Check = { kinds: ['min-isr-not-below-rf'], needs: ['metadata'], diagnosis: false, preventive: { prevents: 'acks=all writes stopping when any one replica is down' }, detect: minIsrNotBelowRf };
