// missing-segments (per host): log segments gone from a broker's log dirs.

import type { Check } from './check.ts';
import type { Evidence, Finding } from '../types.ts';
import { MAX_EVIDENCE_SAMPLES, makeFinding, plural } from '../finding.ts';
import { logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'missing-segments': true;
  }
}

/** Segment files removed under a running broker. */
function missingSegments({ brokerId, report, host, brokers, id }: HostReport): Finding[] {
  const missing = report.logDirs.filter((d) => d.partitionDirsWithoutSegmentsCount > 0 || !d.exists);
  const missingLines = report.logs.segmentsMissing ?? [];
  if (missing.length > 0 || missingLines.length > 0) {
    const total = missing.reduce((n, d) => n + d.partitionDirsWithoutSegmentsCount, 0);
    return [
      makeFinding({
        kind: 'missing-segments',
        severity: 'error',
        title:
          total > 0 || missing.length > 0
            ? `Broker ${brokerId}: ${plural(total, 'partition directory', 'partition directories')} without segments` + (missing.some((d) => !d.exists) ? ' / log dir missing' : '')
            : `Broker ${brokerId}: segment files were deleted under the running broker`,
        summary: `On ${host}, partition directories hold no .log segment (or a log dir is gone). Kafka always keeps an active segment, so something removed files under a running broker.`,
        brokers,
        evidence: missing.flatMap((d): Evidence[] => [
          { label: 'log dir', value: `${d.path}${d.exists ? '' : ' (missing)'}: ${d.partitionDirsWithoutSegmentsCount} of ${d.partitionDirCount} partition dirs empty`, source: `broker:${brokerId}` },
          ...d.partitionDirsWithoutSegments.slice(0, MAX_EVIDENCE_SAMPLES).map((p) => ({ label: 'empty partition dir', value: p, source: `broker:${brokerId}` })),
        ]).concat(logLines('server.log', missingLines, brokerId)),
        identity: id(),
        nextActions: ['Find what deletes files there (cleanup cron, tmp cleaner, rotation) and stop it.', 'Let the broker re-replicate affected partitions from in-sync replicas.'],
      }),
    ];
  }
  return [];
}

export const missingSegmentsCheck: Check = perHost(['missing-segments'], missingSegments);
