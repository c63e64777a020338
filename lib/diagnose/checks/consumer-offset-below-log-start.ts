// consumer-offset-below-log-start: retention deleted records before the group read them.

import type { Finding } from '../types.ts';
import { makeFinding, plural } from '../finding.ts';
import type { Check } from './check.ts';
import { fromView, refs, tpList, stateText, positionEvidence, identity, type ConsumerView } from './consumer-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'consumer-offset-below-log-start': true;
  }
}

/** Retention deleted records before the group read them. */
function offsetBelowLogStart(view: ConsumerView): Finding[] {
  return view.groups.flatMap(({ group, partitions }) => {
    const hit = partitions.filter((p) => p.start !== null && p.committed < p.start);
    if (hit.length === 0) return [];
    const skipped = hit.reduce((n, p) => n + (p.start! - p.committed), 0);
    return [
      makeFinding({
        kind: 'consumer-offset-below-log-start',
        severity: 'error',
        title: `Group ${group.groupId} (${stateText(group)}) lost ${skipped} messages to retention on ${plural(hit.length, 'partition')}`,
        summary:
          `Group ${group.groupId} (${stateText(group)}) committed offsets that retention has already deleted on ${tpList(hit)}. ` +
          `${skipped} messages were never consumed; the group will jump per auto.offset.reset (earliest: to the log start, skipping them; latest: to the end).`,
        partitions: refs(hit),
        groups: [group.groupId],
        evidence: positionEvidence(group, hit, (p) => `, ${p.start! - p.committed} messages skipped`),
        identity: identity(group, hit),
        nextActions: [
          'Find why the group fell behind (stopped or slow consumers) before raising retention.ms on the topic.',
          'If the data matters, replay it from its source: it is gone from Kafka.',
        ],
      }),
    ];
  });
}

export const consumerOffsetBelowLogStartCheck: Check = { kinds: ['consumer-offset-below-log-start'], needs: ['metadata'], detect: fromView(offsetBelowLogStart) };
