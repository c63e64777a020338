// Alerts from any source, normalised to one shape the router and triage read.
import { isTopicName, parseBrokerId } from '../kafka/names.ts';

/** The job kind an alert travels in, from intake to triage. */
export const ALERT_JOB_KIND = 'alert';

export type AlertSource = 'alertmanager' | 'cloudwatch';
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
  url?: string;
}

const CLUSTER_LABELS = ['cluster', 'kafka_cluster', 'cluster_name', 'Cluster Name', 'ClusterName'];
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
  return { ...(clusterHint ? { clusterHint } : {}), brokers: [...brokers].sort((a, b) => a - b), topics: [...topics].sort() };
}
