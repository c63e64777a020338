// consumer-lag: groups stalled, stopped or lagging, judged over the lag samples.

import type { GroupState } from '../../kafka/types.ts';
import { plural } from '../finding.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { aggregateSample, evaluateLag, membersOf, worseStatus, type LagStatus } from '../lag-verdict.ts';
import { fromView, refs, tpList, stateText, positionEvidence, type ConsumerView, type ConsumerPartition } from './consumer-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'consumer-lag': true;
  }
}

const LAG_SEVERITY = { STALLED: 'error', STOPPED: 'warning', LAGGING: 'warning' } as const;

const LAG_MEANING: Record<Exclude<LagStatus, 'OK'>, string> = {
  STALLED: 'members are present but the committed offset did not move while the log end did',
  STOPPED: 'no member is left and the committed offset does not move while messages wait',
  LAGGING: 'commits move but the lag grew at every sample',
};

/** What the renderer words: the group, its verdict, the partitions it names, its total lag and the window judged. */
interface Facts {
  group: GroupState;
  status: Exclude<LagStatus, 'OK'>;
  worst: ConsumerPartition[];
  totalLag: number;
  windowMs: number;
}

/** Burrow-style verdict per group: the worst of its partitions over this run's samples and its aggregate over the kept history. */
function detect(view: ConsumerView): Detected<Facts>[] {
  // Only the kept history needs this run's aggregate.
  const current = view.samples.length > 0 && view.history.length > 0 ? aggregateSample(view.samples[view.samples.length - 1]!, membersOf(view.snapshot)) : null;
  return view.groups.flatMap(({ group, partitions }): Detected<Facts>[] => {
    const members = group.members ?? null;
    const verdicts = partitions.map((p) => ({ p, status: evaluateLag(p.points, members) }));
    let status = verdicts.reduce<LagStatus>((w, v) => worseStatus(w, v.status), 'OK');
    let worst = verdicts.filter((v) => v.status === status).map((v) => v.p);
    // The kept history judges the group as a whole: a longer window than this run's two samples.
    const now = current?.groups[group.groupId];
    if (now && view.history.length > 0) {
      const series = [...view.history.flatMap((h) => h.groups[group.groupId] ?? []), now];
      const fromHistory = evaluateLag(series, members);
      if (fromHistory !== status && worseStatus(status, fromHistory) === fromHistory) {
        status = fromHistory;
        worst = partitions.filter((p) => p.end !== null && p.end > p.committed);
      }
    }
    if (status === 'OK' || worst.length === 0) return [];
    const lagOf = (p: ConsumerPartition) => (p.end ?? p.committed) - p.committed;
    const totalLag = partitions.reduce((n, p) => n + Math.max(0, lagOf(p)), 0);
    const windowMs = view.history.length > 0 ? (view.samples.at(-1)?.at ?? 0) - view.history[0]!.at : (view.samples.at(-1)?.at ?? 0) - (view.samples[0]?.at ?? 0);
    return [
      {
        finding: {
          kind: 'consumer-lag',
          severity: LAG_SEVERITY[status],
          partitions: refs(worst),
          groups: [group.groupId],
          evidence: [
            { label: 'status', value: status, source: 'offsets' },
            ...positionEvidence(group, worst, (p) => `, lag ${lagOf(p)}${p.points.length > 1 ? ` (samples: ${p.points.map((x) => `${x.committed}/${x.end}`).join(' → ')})` : ''}`),
          ],
          identity: [`group:${group.groupId}`, `status:${status}`],
        },
        facts: { group, status, worst, totalLag, windowMs },
      },
    ];
  });
}

function render({ group, status, worst, totalLag, windowMs }: Facts): FindingProse {
  return {
    title: `Group ${group.groupId} (${stateText(group)}) ${status}: lag ${totalLag} on ${plural(worst.length, 'partition')}`,
    summary: `${status}: ${LAG_MEANING[status]} (${stateText(group)}; judged over ${Math.round(windowMs / 1000)} s of samples). Partitions: ${tpList(worst)}.`,
    nextActions:
      status === 'STALLED'
        ? ['Look at the consumers of this group: a stuck poll loop, a poison message, or commits failing (check the client logs).', 'Restarting one consumer triggers a rebalance that often unsticks a partition; find the cause first.']
        : status === 'STOPPED'
          ? ['Start the group\'s consumers, or delete the group if it is abandoned (kafka-consumer-groups.sh --delete --group G).', 'Watch retention: a stopped group loses data once its offset falls below the log start.']
          : ['Scale the consumers (up to one per partition) or find the slow processing step.', 'Check that the lag is not concentrated on one hot partition.'],
  };
}

export const consumerLagCheck: Check = { kinds: ['consumer-lag'], needs: ['metadata'], detect: fromView((view) => detect(view).map((d) => renderFinding(d, render))) };
