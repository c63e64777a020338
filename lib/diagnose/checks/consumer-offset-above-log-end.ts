// consumer-offset-above-log-end: a group committed past the log end (the log was truncated).

import type { Finding } from '../types.ts';
import { makeFinding, plural } from '../finding.ts';
import type { Check } from './check.ts';
import { fromView, refs, tpList, stateText, positionEvidence, identity, type ConsumerView } from './consumer-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'consumer-offset-above-log-end': true;
  }
}

/** Truncation or an unclean election left the group's position past the log's end. */
function offsetAboveLogEnd(view: ConsumerView): Finding[] {
  return view.groups.flatMap(({ group, partitions }) => {
    const hit = partitions.filter((p) => p.end !== null && p.committed > p.end);
    if (hit.length === 0) return [];
    const gap = hit.reduce((n, p) => n + (p.committed - p.end!), 0);
    return [
      makeFinding({
        kind: 'consumer-offset-above-log-end',
        severity: 'error',
        title: `Group ${group.groupId} (${stateText(group)}) committed ${gap} offsets past the log end on ${plural(hit.length, 'partition')}`,
        summary:
          `Group ${group.groupId} (${stateText(group)}) committed beyond the current end of ${tpList(hit)}: the log was truncated (unclean election, leader override). ` +
          `The group resets per auto.offset.reset: with latest it skips every message written until the end passes its old position; with earliest it re-reads the whole log.`,
        partitions: refs(hit),
        groups: [group.groupId],
        evidence: positionEvidence(group, hit, (p) => `, gap ${p.committed - p.end!}`),
        identity: identity(group, hit),
        nextActions: [
          'Decide where the group should resume, then, with its consumers stopped, commit it at the log end: kafka-consumer-groups.sh --reset-offsets --to-latest --group G --topic T --execute.',
          'Messages produced since the truncation up to the old committed offset are otherwise silently skipped.',
        ],
      }),
    ];
  });
}

export const consumerOffsetAboveLogEndCheck: Check = { kinds: ['consumer-offset-above-log-end'], needs: ['metadata'], detect: fromView(offsetAboveLogEnd) };
