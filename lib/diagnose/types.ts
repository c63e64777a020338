// The stable contract of a diagnosis: CLI --json, Slack rendering, alert dedupe
// and operations all read these fields, so change them only additively.
import type { MetricId } from './metrics/catalog.ts';
import type { MetricSeries, MetricsReading, TimeWindow } from './metrics/types.ts';
import type { ClusterChange } from './what-changed.ts';

/**
 * Every finding kind, one key each. Each check file under checks/ adds the
 * kinds it raises (`declare module '../types.ts'`), so the union is what the
 * checks declare and no list is kept by hand here; the runtime list is
 * FINDING_KINDS in checks/index.ts, derived from the table of checks.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging, one check file at a time
export interface FindingKindRegistry {}
export type FindingKind = keyof FindingKindRegistry & string;

export const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

export interface Evidence {
  /** What this piece of evidence is, e.g. "server.log", "min.insync.replicas", "isr". */
  label: string;
  /** The exact value: a log line, a number, a config value. */
  value: string;
  /** Where it was read: broker id, host name, or "metadata". */
  source?: string;
}

export interface Finding {
  kind: FindingKind;
  severity: Severity;
  title: string;
  summary: string;
  affected: {
    partitions: TopicPartitionRef[];
    brokers: number[];
    groups: string[];
    /** KRaft controllers (node ids) the finding names: quorum findings; absent elsewhere. */
    controllers?: number[];
  };
  evidence: Evidence[];
  /** Id of the runbook in runbooks/<id>.md; equals the kind. */
  runbook: string;
  nextActions: string[];
  /** Stable across re-runs of the same problem: kind + the identity of what is affected. */
  fingerprint: string;
  /** Audit findings: the failure this risk leads to, said plainly. */
  prevents?: string;
  /** The operation this finding offers (its "Plan …" button); absent when it offers none. */
  offer?: OperationOffer;
}

/**
 * An operation a finding offers, as its check declares it: the request the
 * "Plan …" button sends (operation kind and parameters, validated again by the
 * operations' schema when clicked) and the button's text. It only plans: the
 * plan is posted for two approvals like the slash commands'.
 */
export interface OperationOffer {
  label: string;
  request: { kind: string } & Record<string, string | number | boolean>;
}

export interface DiagnosisReport {
  cluster: string;
  startedAt: string;
  durationMs: number;
  findings: Finding[];
  /** Host checks that could not run (e.g. Amazon MSK: no host access), said plainly. */
  skippedChecks: string[];
  /** The snapshot was incomplete (a broker or call timed out); findings may be too. */
  partial: boolean;
  /** What could not be read and why ("broker:2": "ListGroups: no answer within 3000 ms"); explains `partial`. */
  snapshotErrors?: { scope: string; message: string }[];
  /** What changed in the cluster in the last hour, oldest first; absent when nothing is known. */
  changes?: ClusterChange[];
  /** Present only when the cluster has a metrics source: what was read around the alert or the diagnosis, for the graph. */
  metrics?: ReportMetrics;
}

export interface ReportMetrics {
  source: MetricsReading['source'];
  window: TimeWindow;
  /** The alert's firing time (epoch ms), marked on the graph. */
  markAtMs?: number;
  /** The series the graph shows, in panel order. */
  chart: MetricId[];
  /** Only the charted metrics' series: the report stays small enough to share. */
  series: MetricSeries[];
  missing: MetricsReading['missing'];
}
