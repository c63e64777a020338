// under-min-isr: partitions whose acks=all writes fail (fewer in-sync replicas than min.insync.replicas).

import { brokerList, plural } from '../finding.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { bucketEvidence, fromView, minIsrEvidence, type MetadataView } from './metadata-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'under-min-isr': true;
  }
}

/** What the renderer words: how many partitions in how many topics, the out-of-sync brokers, and how many partitions are offline. */
interface Facts {
  partitions: number;
  topics: number;
  outOfSync: number[];
  offlineTotal: number;
}

/** Partitions whose acks=all writes fail. */
function detect({ underMinIsr, offlineTotal }: MetadataView): Detected<Facts>[] {
  return [...underMinIsr.values()].map((b) => ({
    finding: {
      kind: 'under-min-isr',
      severity: 'error',
      partitions: b.partitions,
      brokers: b.brokers,
      evidence: [minIsrEvidence(b), ...bucketEvidence(b)],
      identity: ['out-of-sync:' + b.brokers.join(',')],
    },
    facts: { partitions: b.partitions.length, topics: b.perTopic.size, outOfSync: b.brokers, offlineTotal },
  }));
}

function render({ partitions, topics, outOfSync, offlineTotal }: Facts): FindingProse {
  return {
    title: `${plural(partitions, 'partition')} below min.insync.replicas` + (outOfSync.length ? ` (out of sync: ${brokerList(outOfSync)})` : ''),
    summary:
      `${plural(partitions, 'partition')} in ${plural(topics, 'topic')} have fewer in-sync replicas than min.insync.replicas: producers using acks=all get NOT_ENOUGH_REPLICAS and their writes fail.` +
      (offlineTotal > 0 ? ` (${plural(offlineTotal, 'offline partition')} also count as under-min-ISR for kafka-topics.sh; they are in the offline-partition finding.)` : ''),
    nextActions: [
      outOfSync.length ? `Check ${brokerList(outOfSync)}: is it live, catching up (replica lag), or stuck?` : 'Check the replicas outside the ISR.',
      'Do not restart any broker that is in the ISR of these partitions until they are back at min.insync.replicas (can-restart checks this).',
    ],
  };
}

export const underMinIsrCheck: Check = { kinds: ['under-min-isr'], needs: ['metadata'], detect: fromView((view) => detect(view).map((d) => renderFinding(d, render))) };
