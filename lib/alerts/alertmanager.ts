// Prometheus Alertmanager webhook payload, version 4.
import * as z from 'zod';
import { formatIssues } from '../config/schema.ts';
import { clip } from '../slack/limits.ts';
import { DigestBuilder } from './digest.ts';
import { MAX_SUMMARY_CHARS, boundLabels, extractTargets, groupKey, type AlertEvent } from './event.ts';

const labelMap = z.record(z.string(), z.string());

export const alertmanagerAlertSchema = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: labelMap,
  annotations: labelMap.default({}),
  startsAt: z.string(),
  endsAt: z.string().optional(),
  generatorURL: z.string().optional(),
  fingerprint: z.string().optional(),
});

/**
 * The notification around its alerts. The alerts themselves are checked one
 * by one while the digest is folded (parseAlertmanager), so a group of tens of
 * thousands costs one pass and a malformed alert is counted, not a reason to
 * lose the group.
 */
export const alertmanagerEnvelopeSchema = z.object({
  version: z.literal('4', { error: 'only Alertmanager webhook payload version "4" is supported' }),
  groupKey: z.string().min(1).max(4096),
  truncatedAlerts: z.number().int().min(0).default(0),
  status: z.enum(['firing', 'resolved']),
  receiver: z.string(),
  groupLabels: labelMap,
  commonLabels: labelMap,
  commonAnnotations: labelMap.default({}),
  externalURL: z.string().optional(),
  alerts: z.array(z.unknown()).min(1, 'alerts must not be empty'),
});

export const alertmanagerPayloadSchema = alertmanagerEnvelopeSchema.extend({ alerts: z.array(alertmanagerAlertSchema).min(1, 'alerts must not be empty') });
export type AlertmanagerPayload = z.infer<typeof alertmanagerPayloadSchema>;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string };

export function parseAlertmanager(body: string): ParseResult<AlertEvent> {
  const parsed = parseAlertGroup(body, alertmanagerEnvelopeSchema, alertmanagerAlertSchema, 'an Alertmanager v4 payload');
  return parsed.ok ? { ok: true, value: toAlertEvent({ ...parsed.value.envelope, alerts: parsed.value.alerts }, parsed.value.malformed) } : parsed;
}

/**
 * An Alertmanager-shaped notification (Alertmanager's, Grafana's): the
 * envelope checked whole, then each alert on its own, so a malformed alert is
 * counted rather than a reason to lose the group.
 */
export function parseAlertGroup<E extends { alerts: unknown[] }, A>(
  body: string,
  envelopeSchema: z.ZodType<E>,
  alertSchema: z.ZodType<A>,
  what: string,
): ParseResult<{ envelope: E; alerts: A[]; malformed: number }> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    return { ok: false, reason: `body is not JSON: ${(err as Error).message}` };
  }
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) return { ok: false, reason: `not ${what}:\n${formatIssues(envelope.error)}` };
  const alerts: A[] = [];
  let malformed = 0;
  let firstIssue = '';
  for (const raw of envelope.data.alerts) {
    const alert = alertSchema.safeParse(raw);
    if (alert.success) alerts.push(alert.data);
    else {
      malformed++;
      firstIssue ||= formatIssues(alert.error);
    }
  }
  if (alerts.length === 0) return { ok: false, reason: `not ${what}: no alert in it is well-formed:\n${firstIssue}` };
  return { ok: true, value: { envelope: envelope.data, alerts, malformed } };
}

/** The event for triage: what routes it, and the group's digest (counts, the first alerts in full). */
export function toAlertEvent(p: AlertmanagerPayload, malformed = 0): AlertEvent {
  const first = p.alerts[0];
  const alertname = p.commonLabels.alertname ?? p.groupLabels.alertname ?? first?.labels.alertname ?? 'unnamed alert';
  const targets = extractTargets([p.commonLabels, ...p.alerts.map((a) => a.labels)]);
  const digest = new DigestBuilder(Object.keys(p.groupLabels));
  let firing = 0;
  let at = '';
  for (const a of p.alerts) {
    digest.add(a);
    if (a.status === 'firing') firing++;
    const t = p.status === 'resolved' && a.endsAt && !a.endsAt.startsWith('0001') ? a.endsAt : a.startsAt;
    if (t > at) at = t;
  }
  for (let i = 0; i < malformed; i++) digest.addMalformed();
  const summary =
    p.commonAnnotations.summary ??
    p.commonAnnotations.description ??
    first?.annotations.summary ??
    first?.annotations.description ??
    `${firing} firing, ${p.alerts.length - firing} resolved`;
  return {
    source: 'alertmanager',
    groupKey: groupKey(`am:${p.receiver}:${p.groupKey}`),
    status: p.status,
    alertname: clip(alertname, 200),
    title: clip(`${alertname}${targets.clusterHint ? ` on ${targets.clusterHint}` : ''}`, 300),
    summary: clip(summary, MAX_SUMMARY_CHARS),
    labels: boundLabels({ ...p.groupLabels, ...p.commonLabels }),
    at: at || new Date().toISOString(),
    ...targets,
    count: p.alerts.length + malformed + p.truncatedAlerts,
    digest: digest.build(p.truncatedAlerts),
    ...(p.externalURL ? { url: p.externalURL.slice(0, 2000) } : {}),
  };
}
