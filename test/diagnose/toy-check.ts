// A toy check, written as a real one is: one file declaring its finding kind,
// what it needs, a pure detect() returning coded facts, the render that
// words them, and the operation its finding offers. A real check file also adds its kind to
// FindingKindRegistry (declare module '../types.ts') and has runbooks/<kind>.md;
// the toy casts its kind instead so that no test kind leaks into the product's type.
import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from '../../lib/diagnose/checks/check.ts';
import type { FindingKind, OperationOffer } from '../../lib/diagnose/types.ts';

export const TOY_KIND = 'toy-too-many-topics' as FindingKind;
export const TOY_LIMIT = 2;

/** What the renderer words: the topics past the limit. */
interface Facts {
  topics: number;
}

function detect({ snapshot, profile }: CheckInput): Detected<Facts>[] {
  const names = snapshot.topics.filter((t) => !t.internal).map((t) => t.name);
  if (names.length <= TOY_LIMIT) return [];
  return [
    {
      finding: { kind: TOY_KIND, severity: profile === 'preventive' ? 'info' : 'warning', partitions: names.map((topic) => ({ topic, partition: 0 })), identity: ['toy'] },
      facts: { topics: names.length },
    },
  ];
}

function render({ topics }: Facts): FindingProse {
  return { title: `${topics} topics, more than ${TOY_LIMIT}`, summary: 'A toy finding: the cluster has more topics than the toy limit.' };
}

export const toyCheck: Check = {
  kinds: [TOY_KIND],
  needs: ['metadata'],
  preventive: { prevents: 'a toy cluster growing past what its toy owner can read' },
  detect: (input) => detect(input).map((d) => renderFinding(d, render)),
  offer: (f): OperationOffer | undefined => {
    const topic = f.affected.partitions[0]?.topic;
    return topic === undefined ? undefined : { label: `Plan raise RF of ${topic} to 3`, request: { kind: 'raise-replication-factor', topic, replicationFactor: 3 } };
  },
};
