// min-isr-one (preventive, topic configs): min.insync.replicas=1 on a replicated topic. The audit runs it.

import type { Check, CheckInput } from './check.ts';
import { minIsrOf } from '../partition-filters.ts';
import type { Finding } from '../types.ts';
import { rfOf, topicFinding, userTopics } from './topic-facts.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'min-isr-one': true;
  }
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

export const minIsrOneCheck: Check = { kinds: ['min-isr-one'], needs: ['metadata'], diagnosis: false, preventive: { prevents: 'acknowledged writes lost when an ISR of one loses its leader' }, detect: minIsrOne };
