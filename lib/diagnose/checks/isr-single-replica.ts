// isr-single-replica: partitions one failure away from offline (an ISR of one).

import { plural } from '../finding.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { bucketEvidence, fromView, type MetadataView } from './metadata-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'isr-single-replica': true;
  }
}

/** What the renderer words: how many partitions in how many topics, the one in-sync broker, and whether unclean election is off for all of them. */
interface Facts {
  partitions: number;
  topics: number;
  holder: number;
  allUncleanOff: boolean;
}

/** Partitions one failure away from offline. */
function detect({ singleIsr }: MetadataView): Detected<Facts>[] {
  return [...singleIsr.values()].map((b) => {
    const holder = b.brokers[0]!;
    const allUncleanOff = b.uncleanTopics.size === 0;
    return {
      finding: {
        kind: 'isr-single-replica',
        // Incident 1: ISR of one with unclean election off is one failure away from an
        // offline partition whose only way back loses data. That deserves more than a warning.
        severity: allUncleanOff ? 'error' : 'warning',
        partitions: b.partitions,
        brokers: [holder],
        evidence: bucketEvidence(b),
        identity: [`isr-holder:${holder}`],
      },
      facts: { partitions: b.partitions.length, topics: b.perTopic.size, holder, allUncleanOff },
    };
  });
}

function render({ partitions, topics, holder, allUncleanOff }: Facts): FindingProse {
  return {
    title: `${plural(partitions, 'partition')} rely on broker ${holder} alone (ISR of one)`,
    summary:
      `${plural(partitions, 'partition')} in ${plural(topics, 'topic')} have replicas elsewhere but only broker ${holder} in sync. If broker ${holder} stops (or is killed), these partitions go offline` +
      (allUncleanOff ? ' and, with unclean leader election off, stay offline until it returns or someone forces an unclean election that loses data.' : '.'),
    nextActions: [`Do not stop, restart or kill broker ${holder} now (can-restart ${holder} will say no).`, 'Find out why the followers dropped out of the ISR (lag, fetcher errors, down broker) and fix that first.'],
  };
}

export const isrSingleReplicaCheck: Check = { kinds: ['isr-single-replica'], needs: ['metadata'], detect: fromView((view) => detect(view).map((d) => renderFinding(d, render))) };
