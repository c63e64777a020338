// A toy check, written as a real one is: one file declaring its finding kind,
// what it needs, a pure detect() returning coded facts in a finding, and the
// operation its finding offers. A real check file also adds its kind to
// FindingKindRegistry (declare module '../types.ts') and has runbooks/<kind>.md;
// the toy casts its kind instead so that no test kind leaks into the product's type.
import type { Check } from '../../lib/diagnose/checks/check.ts';
import { makeFinding } from '../../lib/diagnose/finding.ts';
import type { FindingKind, OperationOffer } from '../../lib/diagnose/types.ts';

export const TOY_KIND = 'toy-too-many-topics' as FindingKind;
export const TOY_LIMIT = 2;

export const toyCheck: Check = {
  kinds: [TOY_KIND],
  needs: ['metadata'],
  preventive: { prevents: 'a toy cluster growing past what its toy owner can read' },
  detect: ({ snapshot, profile }) => {
    const names = snapshot.topics.filter((t) => !t.internal).map((t) => t.name);
    if (names.length <= TOY_LIMIT) return [];
    return [
      makeFinding({
        kind: TOY_KIND,
        severity: profile === 'preventive' ? 'info' : 'warning',
        title: `${names.length} topics, more than ${TOY_LIMIT}`,
        summary: 'A toy finding: the cluster has more topics than the toy limit.',
        partitions: names.map((topic) => ({ topic, partition: 0 })),
        identity: ['toy'],
      }),
    ];
  },
  offer: (f): OperationOffer | undefined => {
    const topic = f.affected.partitions[0]?.topic;
    return topic === undefined ? undefined : { label: `Plan raise RF of ${topic} to 3`, request: { kind: 'raise-replication-factor', topic, replicationFactor: 3 } };
  },
};
