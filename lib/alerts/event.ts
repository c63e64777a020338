// Alerts from any source, normalised to one shape the router and triage read.
import { createHash } from 'node:crypto';
import { isTopicName, parseBrokerId } from '../kafka/names.ts';
import type { AlertDigest } from './digest.ts';

/** The job kind an alert travels in, from intake to triage. */
export const ALERT_JOB_KIND = 'alert';

/**
 * The name of a source of ALERT_SOURCES (lib/alerts/sources/index.ts): a new
 * source is one file and one table line, with no list of names to extend here
 * (test/alerts/sources-table.test.ts checks each source's events carry its name).
 */
export type AlertSource = string;

/** Longer group keys are shortened (groupKey below): the key travels in every job and group record. */
export const MAX_GROUP_KEY_CHARS = 1024;

/**
 * A group key that fits: a sender's receiver name or group key can be of any
 * length, and the key is stored in every job and group record (DynamoDB takes
 * 400 KB per item). A long key keeps its start, for people reading it, and a
 * digest of the whole, so two groups never share a thread.
 */
export function groupKey(raw: string): string {
  if (raw.length <= MAX_GROUP_KEY_CHARS) return raw;
  return `${raw.slice(0, 256)}…#${createHash('sha256').update(raw).digest('hex')}`;
}
export type AlertStatus = 'firing' | 'resolved';

export interface AlertEvent {
  source: AlertSource;
  /** One group keeps one Slack thread: Alertmanager groupKey, CloudWatch alarm ARN. */
  groupKey: string;
  status: AlertStatus;
  /** Alertmanager alertname, CloudWatch metric name (or alarm name when there is no metric). */
  alertname: string;
  title: string;
  summary: string;
  /** Labels / dimensions; CloudWatch dimension names kept as they are ("Cluster Name"). */
  labels: Record<string, string>;
  /** When this transition happened (ISO). */
  at: string;
  /** Cluster name as the alert names it (label or MSK dimension); resolved against config aliases. */
  clusterHint?: string;
  brokers: number[];
  topics: string[];
  /** Number of alerts in the group (Alertmanager), 1 for CloudWatch. */
  count: number;
  /** Alertmanager: the group's bounded digest (counts, the first alerts in full). */
  digest?: AlertDigest;
  url?: string;
  links?: { label: string; url: string }[];
}

/** The summary an event carries (the thread shows at most 1,500 characters of it). */
export const MAX_SUMMARY_CHARS = 2000;
/** Brokers and topics an event names (routing uses the first topic and every broker; the thread lists 20 and 10). */
export const MAX_TARGET_BROKERS = 200;
export const MAX_TARGET_TOPICS = 50;
const MAX_EVENT_LABELS = 40;
const MAX_LABEL_CHARS = 1000;

/** The event's own labels (routes match on them), bounded: a route never matches on a kilobyte value. */
export function boundLabels(labels: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels).slice(0, MAX_EVENT_LABELS)) out[k.slice(0, 200)] = v.length > MAX_LABEL_CHARS ? `${v.slice(0, MAX_LABEL_CHARS)}…` : v;
  return out;
}

/** Labels that name the cluster, in this order (alerts.clusterLabels in the config comes first). */
export const CLUSTER_LABELS = ['cluster', 'kafka_cluster', 'cluster_name', 'Cluster Name', 'ClusterName'];
const BROKER_LABELS = ['broker', 'broker_id', 'brokerId', 'Broker ID', 'BrokerId', 'kafka_broker'];
const TOPIC_LABELS = ['topic', 'Topic'];

export function pickLabel(labels: Record<string, string>, names: string[]): string | undefined {
  for (const n of names) if (labels[n]) return labels[n];
  return undefined;
}

export function extractTargets(labelSets: Record<string, string>[]): { clusterHint?: string; brokers: number[]; topics: string[] } {
  const brokers = new Set<number>();
  const topics = new Set<string>();
  let clusterHint: string | undefined;
  for (const labels of labelSets) {
    clusterHint ??= pickLabel(labels, CLUSTER_LABELS);
    const b = pickLabel(labels, BROKER_LABELS);
    // Prometheus exporters often label brokers "broker-2" or "kafka-2:9092"; take the id when it is plain.
    const digits = b?.match(/^(?:[a-z-]*?)(\d+)(?::\d+)?$/i)?.[1];
    const id = digits === undefined ? null : parseBrokerId(digits);
    if (id !== null) brokers.add(id);
    const t = pickLabel(labels, TOPIC_LABELS);
    if (t && isTopicName(t)) topics.add(t);
  }
  return {
    ...(clusterHint ? { clusterHint: clusterHint.slice(0, 200) } : {}),
    brokers: [...brokers].sort((a, b) => a - b).slice(0, MAX_TARGET_BROKERS),
    topics: [...topics].sort().slice(0, MAX_TARGET_TOPICS),
  };
}
