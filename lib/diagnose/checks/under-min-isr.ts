// under-min-isr: partitions whose acks=all writes fail (fewer in-sync replicas than min.insync.replicas).

import type { Finding } from '../types.ts';
import { brokerList, makeFinding, plural } from '../finding.ts';
import type { Check } from './check.ts';
import { bucketEvidence, fromView, minIsrEvidence, type MetadataView } from './metadata-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'under-min-isr': true;
  }
}

/** Partitions whose acks=all writes fail. */
function underMinIsrPartitions({ underMinIsr, offlineTotal }: MetadataView): Finding[] {
  const findings: Finding[] = [];
  for (const b of underMinIsr.values()) {
    findings.push(
      makeFinding({
        kind: 'under-min-isr',
        severity: 'error',
        title: `${plural(b.partitions.length, 'partition')} below min.insync.replicas` + (b.brokers.length ? ` (out of sync: ${brokerList(b.brokers)})` : ''),
        summary:
          `${plural(b.partitions.length, 'partition')} in ${plural(b.perTopic.size, 'topic')} have fewer in-sync replicas than min.insync.replicas: producers using acks=all get NOT_ENOUGH_REPLICAS and their writes fail.` +
          (offlineTotal > 0 ? ` (${plural(offlineTotal, 'offline partition')} also count as under-min-ISR for kafka-topics.sh; they are in the offline-partition finding.)` : ''),
        partitions: b.partitions,
        brokers: b.brokers,
        evidence: [minIsrEvidence(b), ...bucketEvidence(b)],
        identity: ['out-of-sync:' + b.brokers.join(',')],
        nextActions: [
          b.brokers.length ? `Check ${brokerList(b.brokers)}: is it live, catching up (replica lag), or stuck?` : 'Check the replicas outside the ISR.',
          'Do not restart any broker that is in the ISR of these partitions until they are back at min.insync.replicas (can-restart checks this).',
        ],
      }),
    );
  }
  return findings;
}

export const underMinIsrCheck: Check = { kinds: ['under-min-isr'], needs: ['metadata'], detect: fromView(underMinIsrPartitions) };
