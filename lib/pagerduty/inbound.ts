// A verified, parsed V3 webhook event → the bot's alert event: one thread per
// incident (the group key is the incident id), firing until it is resolved,
// the cluster from the config's service map or the incident's custom field,
// and the incident linked from the thread.
//
// lib/alerts imports this folder (its source table), so the event is built
// here in AlertEvent's shape without importing it (its type is what alertOf
// builds): test/pagerduty/inbound.test.ts checks that it is an AlertEvent.
import type { PagerDutyConfig } from '../config/pagerduty.ts';
import { clip } from '../slack/limits.ts';
import type { PagerDutyIncident, PagerDutyWebhook } from './webhook.ts';

export type PagerDutyMapping = { kind: 'alert'; event: PagerDutyAlertEvent; incidentId: string } | { kind: 'ignored'; reason: string };

type IncidentMapConfig = PagerDutyConfig['incidents'];

/** The label the incident id travels under: the note on the incident is addressed by it (notes.ts). */
export const INCIDENT_LABEL = 'pagerduty_incident';
/** The label the incident's service id travels under: the worker maps it to a cluster (pagerduty.incidents.services). */
export const SERVICE_LABEL = 'pagerduty_service_id';
const GROUP_PREFIX = 'pagerduty:';

const STATUS: Record<string, 'firing' | 'resolved'> = {
  'incident.triggered': 'firing',
  'incident.acknowledged': 'firing',
  'incident.unacknowledged': 'firing',
  'incident.reopened': 'firing',
  'incident.resolved': 'resolved',
};

/** Why an event is not an alert: said in the 2xx answer, so PagerDuty does not retry it. */
function ignoredReason(eventType: string): string {
  if (eventType === 'incident.annotated') return 'incident.annotated: a note on the incident (the bot\'s own notes among them) is nothing to diagnose';
  if (!eventType.startsWith('incident.')) return `${eventType}: not an incident event`;
  return `${eventType}: does not change whether the incident is open`;
}

export function mapPagerDutyEvent(webhook: PagerDutyWebhook, config: IncidentMapConfig | undefined): PagerDutyMapping {
  const e = webhook.event;
  const status = STATUS[e.event_type];
  if (!status || !('status' in (e.data ?? {}))) return { kind: 'ignored', reason: ignoredReason(e.event_type) };
  const incident = e.data as PagerDutyIncident;
  return { kind: 'alert', event: alertOf(webhook, incident, status, config), incidentId: incident.id };
}

function alertOf(webhook: PagerDutyWebhook, incident: PagerDutyIncident, status: 'firing' | 'resolved', config: IncidentMapConfig | undefined) {
  const e = webhook.event;
  const service = incident.service.summary ?? incident.service.id;
  const labels = incidentLabels(incident);
  const clusterHint = config?.services[incident.service.id] ?? (config?.clusterField ? labels[config.clusterField] : undefined);
  const who = e.agent?.summary ? ` by ${e.agent.summary}` : '';
  const priority = incident.priority?.summary ? ` · priority ${incident.priority.summary}` : '';
  const links: { label: string; url: string }[] = [
    ...(incident.html_url ? [{ label: `PagerDuty incident${incident.number !== undefined ? ` #${incident.number}` : ''}`, url: incident.html_url }] : []),
    ...(incident.service.html_url ? [{ label: `PagerDuty service ${clip(service, 80)}`, url: incident.service.html_url }] : []),
  ];
  return {
    source: 'pagerduty' as const,
    groupKey: `${GROUP_PREFIX}${incident.id}`,
    status,
    alertname: clip(service, 200),
    title: clip(`${incident.number !== undefined ? `#${incident.number} ` : ''}${incident.title || 'PagerDuty incident'}`, 500),
    summary: clip(`${e.event_type.slice('incident.'.length)}${who} · service ${service}${incident.urgency ? ` · ${incident.urgency} urgency` : ''}${priority}`, 2000),
    labels,
    at: e.occurred_at,
    ...(clusterHint ? { clusterHint: clip(clusterHint, 200) } : {}),
    brokers: [] as number[],
    topics: [] as string[],
    count: 1,
    ...(incident.html_url ? { url: incident.html_url } : {}),
    ...(links.length ? { links } : {}),
  };
}

/** The alert event of an incident, in lib/alerts' AlertEvent shape. */
export type PagerDutyAlertEvent = ReturnType<typeof alertOf>;

const MAX_LABELS = 40;

/** What routes can match on: the service, urgency, priority and each custom field's value (by its name). */
function incidentLabels(incident: PagerDutyIncident): Record<string, string> {
  const labels: Record<string, string> = {
    [INCIDENT_LABEL]: incident.id,
    [SERVICE_LABEL]: incident.service.id,
    ...(incident.service.summary ? { pagerduty_service: clip(incident.service.summary, 200) } : {}),
    ...(incident.urgency ? { urgency: incident.urgency } : {}),
    ...(incident.priority?.summary ? { priority: clip(incident.priority.summary, 100) } : {}),
  };
  for (const f of incident.custom_fields ?? []) {
    if (Object.keys(labels).length >= MAX_LABELS) break;
    if (f.value === null || f.value === undefined || f.name in labels) continue;
    labels[clip(f.name, 200)] = clip(Array.isArray(f.value) ? f.value.join(',') : String(f.value), 1000);
  }
  return labels;
}

/** The PagerDuty incident an alert event stands for (the note's address), or undefined for another source's. */
export function incidentIdOf(event: { source: string; labels: Record<string, string> }): string | undefined {
  return event.source === 'pagerduty' ? event.labels[INCIDENT_LABEL] : undefined;
}
