// isr-single-replica: partitions one failure away from offline (an ISR of one).

import type { Finding } from '../types.ts';
import { makeFinding, plural } from '../finding.ts';
import type { Check } from './check.ts';
import { bucketEvidence, fromView, type MetadataView } from './metadata-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'isr-single-replica': true;
  }
}

/** Partitions one failure away from offline. */
function singleInSyncReplica({ singleIsr }: MetadataView): Finding[] {
  const findings: Finding[] = [];
  for (const b of singleIsr.values()) {
    const holder = b.brokers[0]!;
    const allUncleanOff = b.uncleanTopics.size === 0;
    findings.push(
      makeFinding({
        kind: 'isr-single-replica',
        // Incident 1: ISR of one with unclean election off is one failure away from an
        // offline partition whose only way back loses data. That deserves more than a warning.
        severity: allUncleanOff ? 'error' : 'warning',
        title: `${plural(b.partitions.length, 'partition')} rely on broker ${holder} alone (ISR of one)`,
        summary:
          `${plural(b.partitions.length, 'partition')} in ${plural(b.perTopic.size, 'topic')} have replicas elsewhere but only broker ${holder} in sync. If broker ${holder} stops (or is killed), these partitions go offline` +
          (allUncleanOff ? ' and, with unclean leader election off, stay offline until it returns or someone forces an unclean election that loses data.' : '.'),
        partitions: b.partitions,
        brokers: [holder],
        evidence: bucketEvidence(b),
        identity: [`isr-holder:${holder}`],
        nextActions: [
          `Do not stop, restart or kill broker ${holder} now (can-restart ${holder} will say no).`,
          'Find out why the followers dropped out of the ISR (lag, fetcher errors, down broker) and fix that first.',
        ],
      }),
    );
  }
  return findings;
}

export const isrSingleReplicaCheck: Check = { kinds: ['isr-single-replica'], needs: ['metadata'], detect: fromView(singleInSyncReplica) };
