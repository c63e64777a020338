// Prometheus Alertmanager webhook payload, version 4.
import { z } from 'zod';
import { formatIssues } from '../config/schema.ts';
import { extractTargets, type AlertEvent } from './event.ts';

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

export const alertmanagerPayloadSchema = z.object({
  version: z.literal('4', { error: 'only Alertmanager webhook payload version "4" is supported' }),
  groupKey: z.string().min(1).max(4096),
  truncatedAlerts: z.number().int().min(0).default(0),
  status: z.enum(['firing', 'resolved']),
  receiver: z.string(),
  groupLabels: labelMap,
  commonLabels: labelMap,
  commonAnnotations: labelMap.default({}),
  externalURL: z.string().optional(),
  alerts: z.array(alertmanagerAlertSchema).min(1, 'alerts must not be empty').max(1000),
});
export type AlertmanagerPayload = z.infer<typeof alertmanagerPayloadSchema>;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string };

export function parseAlertmanager(body: string): ParseResult<AlertEvent> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    return { ok: false, reason: `body is not JSON: ${(err as Error).message}` };
  }
  const parsed = alertmanagerPayloadSchema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: `not an Alertmanager v4 payload:\n${formatIssues(parsed.error)}` };
  return { ok: true, value: toAlertEvent(parsed.data) };
}

export function toAlertEvent(p: AlertmanagerPayload): AlertEvent {
  const alertname = p.commonLabels.alertname ?? p.groupLabels.alertname ?? p.alerts[0]?.labels.alertname ?? 'unnamed alert';
  const targets = extractTargets([p.commonLabels, ...p.alerts.map((a) => a.labels)]);
  const firing = p.alerts.filter((a) => a.status === 'firing');
  const summary =
    p.commonAnnotations.summary ??
    p.commonAnnotations.description ??
    p.alerts[0]?.annotations.summary ??
    p.alerts[0]?.annotations.description ??
    `${firing.length} firing, ${p.alerts.length - firing.length} resolved`;
  const times = p.alerts.map((a) => (p.status === 'resolved' && a.endsAt && !a.endsAt.startsWith('0001') ? a.endsAt : a.startsAt));
  const at = times.sort().at(-1) ?? new Date().toISOString();
  return {
    source: 'alertmanager',
    groupKey: `am:${p.receiver}:${p.groupKey}`,
    status: p.status,
    alertname,
    title: `${alertname}${targets.clusterHint ? ` on ${targets.clusterHint}` : ''}`,
    summary,
    labels: { ...p.groupLabels, ...p.commonLabels },
    at,
    ...targets,
    count: p.alerts.length + p.truncatedAlerts,
    ...(p.externalURL ? { url: p.externalURL } : {}),
  };
}
