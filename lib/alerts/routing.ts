// Which diagnosis an alert needs and where its triage goes. Configured routes
// come first; built-in routes cover the MSK CloudWatch metrics and the usual
// Prometheus alert names, so a fresh install does something sensible.
import type { AlertRoute, ClusterConfig, Config } from '../config/schema.ts';
import { findCluster } from '../config/schema.ts';
import { escapeMrkdwn, inlineCode as code } from '../slack/limits.ts';
import { CLUSTER_LABELS, pickLabel, type AlertEvent } from './event.ts';
import { ALERT_SOURCES } from './sources/index.ts';
import type { SourceClusterMapping, Unmapped } from './sources/types.ts';

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
  unmapped?: Unmapped;
  /** Topic and brokers to look at, from the alert's labels when the route asks for them. */
  topic?: string;
  brokers?: number[];
}

export function routeAlert(event: AlertEvent, config: Config): RoutedAlert {
  const configured = config.alerts.routes.find((r) => routeMatches(r, event));
  const builtin = configured ? undefined : BUILTIN_ROUTES.find((r) => routeMatches(r, event));
  const route = configured ?? builtin ?? FALLBACK_ROUTE;
  // The source's own mapping, then the config's labels for this source; an alert naming no cluster goes to the
  // only (or default) cluster unless its source says an unmapped event is about none.
  const mapping = mappingOf(event.source);
  const sourceLabels = config.alerts.clusterLabels[event.source] ?? [];
  const hint = mapping?.hint(event, config) ?? pickLabel(event.labels, sourceLabels) ?? event.clusterHint;
  const cluster = mapping?.noDefault && hint === undefined ? undefined : findCluster(config, hint);
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

const mappingOf = (name: string): SourceClusterMapping | undefined => ALERT_SOURCES.find((s) => s.name === name)?.cluster;

/** Why no configured cluster takes the alert, and the label (or alias) that would map it. */
export function unmappedReason(event: AlertEvent, config: Config, hint: string | undefined, sourceLabels: string[] = []): Unmapped {
  const names = config.clusters.map((c) => code(c.name)).join(', ');
  const mapping = mappingOf(event.source);
  if (mapping) return mapping.unmapped(event, config, hint, names);
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
