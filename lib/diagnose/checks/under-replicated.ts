// under-replicated: partitions with reduced redundancy that still take writes.

import type { Finding } from '../types.ts';
import { brokerList, makeFinding, plural } from '../finding.ts';
import type { Check } from './check.ts';
import { bucketEvidence, fromView, type MetadataView } from './metadata-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'under-replicated': true;
  }
}

/** Partitions with reduced redundancy that still take writes. */
function underReplicatedPartitions({ underReplicated }: MetadataView): Finding[] {
  const findings: Finding[] = [];
  for (const b of underReplicated.values()) {
    findings.push(
      makeFinding({
        kind: 'under-replicated',
        severity: 'warning',
        title: `${plural(b.partitions.length, 'partition')} under-replicated` + (b.brokers.length ? ` (out of sync: ${brokerList(b.brokers)})` : ''),
        summary: `${plural(b.partitions.length, 'partition')} in ${plural(b.perTopic.size, 'topic')} have fewer in-sync replicas than their replication factor but still meet min.insync.replicas. Redundancy is reduced: one more failure may stop writes or take them offline.`,
        partitions: b.partitions,
        brokers: b.brokers,
        evidence: bucketEvidence(b),
        identity: ['out-of-sync:' + b.brokers.join(',')],
        nextActions: [
          b.brokers.length ? `Check that ${brokerList(b.brokers)} is live and replicating (ReplicaFetcher errors, disk, network).` : 'Check the replicas outside the ISR.',
          'Avoid restarting brokers in these ISRs until replication catches up.',
        ],
      }),
    );
  }
  return findings;
}

export const underReplicatedCheck: Check = { kinds: ['under-replicated'], needs: ['metadata'], detect: fromView(underReplicatedPartitions) };
