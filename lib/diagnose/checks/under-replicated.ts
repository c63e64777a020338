// under-replicated: partitions with reduced redundancy that still take writes.

import { brokerList, plural } from '../finding.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { bucketEvidence, fromView, type MetadataView } from './metadata-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'under-replicated': true;
  }
}

/** What the renderer words: how many partitions in how many topics, and the out-of-sync brokers. */
interface Facts {
  partitions: number;
  topics: number;
  outOfSync: number[];
}

/** Partitions with reduced redundancy that still take writes. */
function detect({ underReplicated }: MetadataView): Detected<Facts>[] {
  return [...underReplicated.values()].map((b) => ({
    finding: { kind: 'under-replicated', severity: 'warning', partitions: b.partitions, brokers: b.brokers, evidence: bucketEvidence(b), identity: ['out-of-sync:' + b.brokers.join(',')] },
    facts: { partitions: b.partitions.length, topics: b.perTopic.size, outOfSync: b.brokers },
  }));
}

function render({ partitions, topics, outOfSync }: Facts): FindingProse {
  return {
    title: `${plural(partitions, 'partition')} under-replicated` + (outOfSync.length ? ` (out of sync: ${brokerList(outOfSync)})` : ''),
    summary: `${plural(partitions, 'partition')} in ${plural(topics, 'topic')} have fewer in-sync replicas than their replication factor but still meet min.insync.replicas. Redundancy is reduced: one more failure may stop writes or take them offline.`,
    nextActions: [
      outOfSync.length ? `Check that ${brokerList(outOfSync)} is live and replicating (ReplicaFetcher errors, disk, network).` : 'Check the replicas outside the ISR.',
      'Avoid restarting brokers in these ISRs until replication catches up.',
    ],
  };
}

export const underReplicatedCheck: Check = { kinds: ['under-replicated'], needs: ['metadata'], detect: fromView((view) => detect(view).map((d) => renderFinding(d, render))) };
