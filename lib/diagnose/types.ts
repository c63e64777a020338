// The stable contract of a diagnosis: CLI --json, Slack rendering, alert dedupe
// and operations all read these fields, so change them only additively.
import type { MetricId } from './metrics/catalog.ts';
import type { MetricSeries, MetricsReading, TimeWindow } from './metrics/types.ts';
import type { ClusterChange } from './what-changed.ts';

export const FINDING_KINDS = [
  'offline-partition',
  'isr-single-replica',
  'replication-factor-one',
  'under-min-isr',
  'under-replicated',
  'coordinator-loading',
  'consumer-offsets-oversized',
  'log-cleaner-stalled',
  'unclean-shutdown-recovery',
  'corrupt-index',
  'index-append-fatal',
  'unsupported-request-version',
  'missing-segments',
  'risky-log-dir',
  'disk-pressure',
  'inode-pressure',
  'fd-pressure',
  'mmap-pressure',
  'short-stop-timeout',
  'broker-crash-loop',
  'broker-unreachable',
  // Registered but fenced (KIP-1073, Kafka 4.0 KRaft): not heartbeating, told apart from a live broker we cannot reach.
  'broker-fenced',
  'host-unreachable',
  'consumer-offset-below-log-start',
  'consumer-offset-above-log-end',
  'consumer-lag',
  // Transactions (KIP-664): open transactions no coordinator will close, and last stable offsets that stopped.
  'hanging-transaction',
  'lso-stalled',
  // An open transaction holding the LSO whose coordinator cannot be asked yet (its __transaction_state partition has no leader).
  'transaction-unresolved',
  // The KRaft controller quorum (DescribeQuorum): one failure from losing its majority, no leader, a replica behind the metadata log.
  'quorum-at-risk',
  'quorum-lost',
  'metadata-log-lag',
  // Preventive audit (lib/audit/): risks in configuration and host state, before anything breaks.
  'min-isr-not-below-rf',
  'min-isr-one',
  'unclean-election-enabled',
  'internal-topic-unsafe',
  'broker-replication-defaults',
  'stop-timeout-below-shutdown',
  'disk-trend-full',
  'inode-trend-full',
  'fd-mmap-headroom',
  'broker-config-drift',
  'topic-override-weaker',
  // The controller quorum's shape: static voters where the line runs dynamic ones (3.9+), an even count or a single voter.
  'quorum-static-voters',
  'quorum-size-unsafe',
  // Not a cluster symptom: the probe answered with something we could not read.
  'probe-error',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

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
