// consumer-offsets-oversized (across hosts): __consumer_offsets replicas whose compaction is behind.

import { CONSUMER_OFFSETS_TOPIC } from '../../kafka/group-partition.ts';
import type { ProbeReport } from '../../hosts/types.ts';
import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { MAX_EVIDENCE_SAMPLES, plural } from '../finding.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'consumer-offsets-oversized': true;
  }
}

// Incident 2: a healthy compacted partition holds a handful of 100 MB segments
// (offsets.topic.segment.bytes); 50 segments or 1 GiB means compaction has not
// kept up and a coordinator load will take minutes. The incident had 2,000+.
export const OFFSETS_SEGMENTS_WARNING = 50;

export const OFFSETS_BYTES_WARNING = 1024 ** 3;

export const OFFSETS_SEGMENTS_ERROR = 500;

export const OFFSETS_BYTES_ERROR = 10 * 1024 ** 3;

/** What the renderer words: the oversized __consumer_offsets partitions, sorted. */
interface Facts {
  partitions: number[];
}

function detect({ probes }: CheckInput): Detected<Facts>[] {
  const hits: { brokerId: number; p: ProbeReport['consumerOffsets'][number] }[] = [];
  for (const o of probes) {
    if (!o.ok) continue;
    for (const p of o.report.consumerOffsets) {
      if (p.segments > OFFSETS_SEGMENTS_WARNING || p.bytes > OFFSETS_BYTES_WARNING) hits.push({ brokerId: o.brokerId, p });
    }
  }
  if (hits.length === 0) return [];
  const partitions = [...new Set(hits.map((h) => h.p.partition))].sort((a, b) => a - b);
  const severe = hits.some((h) => h.p.segments > OFFSETS_SEGMENTS_ERROR || h.p.bytes > OFFSETS_BYTES_ERROR);
  hits.sort((a, b) => b.p.segments - a.p.segments || a.brokerId - b.brokerId);
  const evidence = hits.slice(0, MAX_EVIDENCE_SAMPLES).map((h) => ({
    label: `${CONSUMER_OFFSETS_TOPIC}-${h.p.partition}`,
    value: `${h.p.segments} segments, ${h.p.bytes} bytes in ${h.p.logDir}`,
    source: `broker:${h.brokerId}`,
  }));
  return [
    {
      finding: {
        kind: 'consumer-offsets-oversized',
        severity: severe ? 'error' : 'warning',
        partitions: partitions.map((p) => ({ topic: CONSUMER_OFFSETS_TOPIC, partition: p })),
        brokers: hits.map((h) => h.brokerId),
        evidence,
        identity: partitions.map((p) => `offsets:${p}`),
      },
      facts: { partitions },
    },
  ];
}

function render({ partitions }: Facts): FindingProse {
  return {
    title: `${plural(partitions.length, `${CONSUMER_OFFSETS_TOPIC} partition`)} oversized (${partitions.map((p) => `${CONSUMER_OFFSETS_TOPIC}-${p}`).slice(0, 5).join(', ')}${partitions.length > 5 ? ', …' : ''})`,
    summary:
      `Compaction of ${CONSUMER_OFFSETS_TOPIC} is behind: these partitions hold more than ${OFFSETS_SEGMENTS_WARNING} segments or ${OFFSETS_BYTES_WARNING / 1024 ** 3} GiB. ` +
      'Loading one after a leader change takes long, and every group on it cannot consume meanwhile.',
    nextActions: [
      'Check log-cleaner health on the brokers holding these partitions (log-cleaner.log; cleanup.policy and min.compaction.lag.ms of __consumer_offsets).',
      'Never restart all replica holders of these partitions at once; restart one, wait for its loads to finish.',
    ],
  };
}

/** One finding for all oversized replicas across brokers: it is one problem (compaction behind) wherever they live. */
export const consumerOffsetsOversizedCheck: Check = {
  kinds: ['consumer-offsets-oversized'],
  needs: ['hosts'],
  preventive: { prevents: 'groups unable to consume while an oversized offsets partition loads' },
  detect: (input) => detect(input).map((d) => renderFinding(d, render)),
};
