// consumer-offset-above-log-end: a group committed past the log end (the log was truncated).

import type { GroupState } from '../../kafka/types.ts';
import { plural } from '../finding.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { fromView, refs, tpList, stateText, positionEvidence, identity, type ConsumerPartition, type ConsumerView } from './consumer-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'consumer-offset-above-log-end': true;
  }
}

/** Truncation or an unclean election left the group's position past the log's end. */
/** What the renderer words: the group, its partitions past the log end, and by how many offsets in all. */
interface Facts {
  group: GroupState;
  hit: ConsumerPartition[];
  gap: number;
}

function detect(view: ConsumerView): Detected<Facts>[] {
  return view.groups.flatMap(({ group, partitions }): Detected<Facts>[] => {
    const hit = partitions.filter((p) => p.end !== null && p.committed > p.end);
    if (hit.length === 0) return [];
    const gap = hit.reduce((n, p) => n + (p.committed - p.end!), 0);
    return [
      {
        finding: {
          kind: 'consumer-offset-above-log-end',
          severity: 'error',
          partitions: refs(hit),
          groups: [group.groupId],
          evidence: positionEvidence(group, hit, (p) => `, gap ${p.committed - p.end!}`),
          identity: identity(group, hit),
        },
        facts: { group, hit, gap },
      },
    ];
  });
}

function render({ group, hit, gap }: Facts): FindingProse {
  return {
    title: `Group ${group.groupId} (${stateText(group)}) committed ${gap} offsets past the log end on ${plural(hit.length, 'partition')}`,
    summary:
      `Group ${group.groupId} (${stateText(group)}) committed beyond the current end of ${tpList(hit)}: the log was truncated (unclean election, leader override). ` +
      `The group resets per auto.offset.reset: with latest it skips every message written until the end passes its old position; with earliest it re-reads the whole log.`,
    nextActions: [
      'Decide where the group should resume, then, with its consumers stopped, commit it at the log end: kafka-consumer-groups.sh --reset-offsets --to-latest --group G --topic T --execute.',
      'Messages produced since the truncation up to the old committed offset are otherwise silently skipped.',
    ],
  };
}

export const consumerOffsetAboveLogEndCheck: Check = { kinds: ['consumer-offset-above-log-end'], needs: ['metadata'], detect: fromView((view) => detect(view).map((d) => renderFinding(d, render))) };
