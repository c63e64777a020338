// consumer-offset-below-log-start: retention deleted records before the group read them.

import type { GroupState } from '../../kafka/types.ts';
import { plural } from '../finding.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { fromView, refs, tpList, stateText, positionEvidence, identity, type ConsumerPartition, type ConsumerView } from './consumer-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'consumer-offset-below-log-start': true;
  }
}

/** Retention deleted records before the group read them. */
/** What the renderer words: the group, its partitions below the log start, and how many messages it skipped. */
interface Facts {
  group: GroupState;
  hit: ConsumerPartition[];
  skipped: number;
}

function detect(view: ConsumerView): Detected<Facts>[] {
  return view.groups.flatMap(({ group, partitions }): Detected<Facts>[] => {
    const hit = partitions.filter((p) => p.start !== null && p.committed < p.start);
    if (hit.length === 0) return [];
    const skipped = hit.reduce((n, p) => n + (p.start! - p.committed), 0);
    return [
      {
        finding: {
          kind: 'consumer-offset-below-log-start',
          severity: 'error',
          partitions: refs(hit),
          groups: [group.groupId],
          evidence: positionEvidence(group, hit, (p) => `, ${p.start! - p.committed} messages skipped`),
          identity: identity(group, hit),
        },
        facts: { group, hit, skipped },
      },
    ];
  });
}

function render({ group, hit, skipped }: Facts): FindingProse {
  return {
    title: `Group ${group.groupId} (${stateText(group)}) lost ${skipped} messages to retention on ${plural(hit.length, 'partition')}`,
    summary:
      `Group ${group.groupId} (${stateText(group)}) committed offsets that retention has already deleted on ${tpList(hit)}. ` +
      `${skipped} messages were never consumed; the group will jump per auto.offset.reset (earliest: to the log start, skipping them; latest: to the end).`,
    nextActions: ['Find why the group fell behind (stopped or slow consumers) before raising retention.ms on the topic.', 'If the data matters, replay it from its source: it is gone from Kafka.'],
  };
}

export const consumerOffsetBelowLogStartCheck: Check = { kinds: ['consumer-offset-below-log-start'], needs: ['metadata'], detect: fromView((view) => detect(view).map((d) => renderFinding(d, render))) };
