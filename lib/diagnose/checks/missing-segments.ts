// missing-segments (per host): log segments gone from a broker's log dirs.

import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import type { Evidence } from '../types.ts';
import { MAX_EVIDENCE_SAMPLES, plural } from '../finding.ts';
import { logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'missing-segments': true;
  }
}

/** What the renderer words: the broker, its host, how many partition dirs have no segment, whether a log dir is gone. */
interface Facts {
  brokerId: number;
  host: string;
  /** Partition dirs without segments, over every log dir. */
  total: number;
  /** Some log dir is missing or has partition dirs without segments (else only server.log said so). */
  inLogDirs: boolean;
  logDirMissing: boolean;
}

/** Segment files removed under a running broker. */
function detect({ brokerId, report, host, brokers, id }: HostReport): Detected<Facts>[] {
  const missing = report.logDirs.filter((d) => d.partitionDirsWithoutSegmentsCount > 0 || !d.exists);
  const missingLines = report.logs.segmentsMissing ?? [];
  if (missing.length === 0 && missingLines.length === 0) return [];
  const total = missing.reduce((n, d) => n + d.partitionDirsWithoutSegmentsCount, 0);
  const evidence = missing
    .flatMap((d): Evidence[] => [
      { label: 'log dir', value: `${d.path}${d.exists ? '' : ' (missing)'}: ${d.partitionDirsWithoutSegmentsCount} of ${d.partitionDirCount} partition dirs empty`, source: `broker:${brokerId}` },
      ...d.partitionDirsWithoutSegments.slice(0, MAX_EVIDENCE_SAMPLES).map((p) => ({ label: 'empty partition dir', value: p, source: `broker:${brokerId}` })),
    ])
    .concat(logLines('server.log', missingLines, brokerId));
  return [
    {
      finding: { kind: 'missing-segments', severity: 'error', brokers, evidence, identity: id() },
      facts: { brokerId, host, total, inLogDirs: total > 0 || missing.length > 0, logDirMissing: missing.some((d) => !d.exists) },
    },
  ];
}

function render({ brokerId, host, total, inLogDirs, logDirMissing }: Facts): FindingProse {
  return {
    title: inLogDirs
      ? `Broker ${brokerId}: ${plural(total, 'partition directory', 'partition directories')} without segments` + (logDirMissing ? ' / log dir missing' : '')
      : `Broker ${brokerId}: segment files were deleted under the running broker`,
    summary: `On ${host}, partition directories hold no .log segment (or a log dir is gone). Kafka always keeps an active segment, so something removed files under a running broker.`,
    nextActions: ['Find what deletes files there (cleanup cron, tmp cleaner, rotation) and stop it.', 'Let the broker re-replicate affected partitions from in-sync replicas.'],
  };
}

export const missingSegmentsCheck: Check = perHost(['missing-segments'], (h) => detect(h).map((d) => renderFinding(d, render)));
