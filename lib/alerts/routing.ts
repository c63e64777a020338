// Which diagnosis an alert needs and where its triage goes. Configured routes
// come first; built-in routes cover the MSK CloudWatch metrics and the usual
// Prometheus alert names, so a fresh install does something sensible.
import type { AlertRoute, ClusterConfig, Config } from '../config/schema.ts';
import { findCluster } from '../config/schema.ts';
import { escapeMrkdwn } from '../slack/limits.ts';
import { SERVICE_LABEL } from '../pagerduty/inbound.ts';
import { CLUSTER_LABELS, pickLabel, type AlertEvent } from './event.ts';

export type DiagnosisScope = AlertRoute['diagnose'][number];

export const BUILTIN_ROUTES: AlertRoute[] = [
  { match: { alertname: 'OfflinePartitionsCount' }, diagnose: ['cluster', 'topics'], note: 'Offline partitions: find the partitions with leader -1 and why no replica can lead (a last in-sync leader lost, a replication-factor-1 broker gone).' },
  { match: { alertname: 'UnderMinIsrPartitionCount' }, diagnose: ['cluster', 'topics'], note: 'Under min ISR: acks=all producers fail for these partitions.' },
  { match: { alertname: 'UnderReplicatedPartitions' }, diagnose: ['cluster', 'brokers'], note: 'Under-replicated: check which broker fell out of ISR and why.' },
  { match: { alertname: 'ActiveControllerCount' }, diagnose: ['cluster'], note: 'Exactly one active controller is expected.' },
  { match: { alertname: 'KafkaDataLogsDiskUsed' }, diagnose: ['brokers'], note: 'Disk use on data log dirs: check retention, stalled log cleaning and inodes (segments vanish when a log dir fills).' },
  { match: { alertname: 'KafkaOfflinePartitions' }, diagnose: ['cluster', 'topics'] },
  { match: { alertname: 'KafkaUnderReplicatedPartitions' }, diagnose: ['cluster', 'brokers'] },
  { match: { alertname: 'KafkaUnderMinIsrPartitions' }, diagnose: ['cluster', 'topics'] },
  { match: { alertname: 'KafkaNoActiveController' }, diagnose: ['cluster'] },
  { match: { alertname: 'KafkaBrokerDown' }, diagnose: ['cluster', 'brokers'] },
];

const FALLBACK_ROUTE: AlertRoute = { match: {}, diagnose: ['cluster'] };

export function routeMatches(route: AlertRoute, event: AlertEvent): boolean {
  const m = route.match;
  if (m.alertname !== undefined && m.alertname !== event.alertname) return false;
  if (m.source !== undefined && m.source !== event.source) return false;
  for (const [k, v] of Object.entries(m.labels ?? {})) if (event.labels[k] !== v) return false;
  return true;
}

export interface RoutedAlert {
  route: AlertRoute;
  builtin: boolean;
  cluster: ClusterConfig | undefined;
  channel: string;
  scope: DiagnosisScope[];
  /** No configured cluster: why, and what to add (the thread says both). */
  unmapped?: { why: string; fix: string };
  /** Topic and brokers to look at, from the alert's labels when the route asks for them. */
  topic?: string;
  brokers?: number[];
}

export function routeAlert(event: AlertEvent, config: Config): RoutedAlert {
  const configured = config.alerts.routes.find((r) => routeMatches(r, event));
  const builtin = configured ? undefined : BUILTIN_ROUTES.find((r) => routeMatches(r, event));
  const route = configured ?? builtin ?? FALLBACK_ROUTE;
  // The config's labels for this source first; an alert naming no cluster goes to the only (or default) cluster.
  const sourceLabels = config.alerts.clusterLabels[event.source] ?? [];
  const hint = pagerDutyHint(event, config) ?? pickLabel(event.labels, sourceLabels) ?? event.clusterHint;
  // A PagerDuty incident is about a Kafka cluster only when the mapping says so: no default cluster for any service's incident.
  const cluster = event.source === 'pagerduty' && hint === undefined ? undefined : findCluster(config, hint);
  const routed: RoutedAlert = {
    route,
    builtin: !configured,
    cluster,
    channel: route.channel ?? config.slack.incidentChannel,
    scope: route.diagnose,
  };
  if (!cluster) routed.unmapped = unmappedReason(event, config, hint, sourceLabels);
  if (route.diagnose.includes('topics') && event.topics[0]) routed.topic = event.topics[0];
  if (route.diagnose.includes('brokers') && event.brokers.length) routed.brokers = event.brokers;
  return routed;
}

/**
 * A PagerDuty incident's cluster, as the config's pagerduty.incidents says:
 * its service id in `services`, else the custom field `clusterField` names it.
 * The alerts function reads no config: both travel as the event's labels.
 */
export function pagerDutyHint(event: AlertEvent, config: Config): string | undefined {
  const incidents = config.pagerduty?.incidents;
  if (event.source !== 'pagerduty' || !incidents) return undefined;
  const service = event.labels[SERVICE_LABEL];
  return (service ? incidents.services[service] : undefined) ?? (incidents.clusterField ? event.labels[incidents.clusterField] : undefined);
}

// Label names and values come from the alert: escaped here, where the mrkdwn is made.
const code = (s: string) => `\`${escapeMrkdwn(s.replace(/`/g, "'").slice(0, 100))}\``;

/** Why no configured cluster takes the alert, and the label (or alias) that would map it. */
export function unmappedReason(event: AlertEvent, config: Config, hint: string | undefined, sourceLabels: string[] = []): { why: string; fix: string } {
  const names = config.clusters.map((c) => code(c.name)).join(', ');
  if (event.source === 'pagerduty') return unmappedIncident(event, config, hint, names);
  const labels = [...sourceLabels, ...CLUSTER_LABELS];
  if (hint !== undefined) {
    const label = labels.find((l) => event.labels[l] === hint);
    const value = `"${escapeMrkdwn(hint.slice(0, 100))}"`;
    return {
      why: `the alert's ${label ? `${code(label)} label` : 'cluster label'} says ${value}, which is neither the name nor an alias of a configured cluster (${names})`,
      fix: `add ${value} to that cluster's \`aliases\` in the configuration, or make the label name it`,
    };
  }
  return {
    why: `the alert carries none of the labels that name a cluster (${labels.slice(0, 8).map(code).join(', ')}), and ${config.clusters.length} clusters are configured with no \`defaultCluster\``,
    fix: `add a ${code('cluster')} label naming one of ${names} to the alert rule, or list the label your alerts use in \`alerts.clusterLabels.${event.source}\``,
  };
}

/** A PagerDuty incident no configured cluster takes: its service id and the mapping to add (pagerduty.incidents). */
function unmappedIncident(event: AlertEvent, config: Config, hint: string | undefined, names: string): { why: string; fix: string } {
  const service = event.labels[SERVICE_LABEL] ?? '?';
  const field = config.pagerduty?.incidents.clusterField;
  if (hint !== undefined) {
    return {
      why: `\`pagerduty.incidents\` maps the incident (service ${code(service)}) to "${escapeMrkdwn(hint.slice(0, 100))}", which is neither the name nor an alias of a configured cluster (${names})`,
      fix: 'name a configured cluster (or one of its `aliases`) in that mapping',
    };
  }
  return {
    why: `its PagerDuty service ${code(service)} is not in \`pagerduty.incidents.services\`${field ? ` and its custom field ${code(field)} is not set` : ' and no `clusterField` is configured'} (an incident goes to no cluster by default)`,
    fix: `add \`"${escapeMrkdwn(service.replace(/[`"]/g, "'").slice(0, 64))}": "&lt;cluster&gt;"\` to \`pagerduty.incidents.services\` (one of ${names}), or set \`pagerduty.incidents.clusterField\` to the incident's custom field that names the cluster`,
  };
}
