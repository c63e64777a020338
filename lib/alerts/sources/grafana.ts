// Grafana Alerting's webhook contact point: Alertmanager's shape with
// "version": "1" and Grafana's own fields (orgId, title, state, message; per
// alert values, valueString and the dashboard, panel and silence URLs).
// Bearer ("Authorization header" credentials) or Basic auth, as the contact
// point offers; the token is the SecureString grafana-token.
import * as z from 'zod';
import { alertmanagerAlertSchema, alertmanagerEnvelopeSchema, parseAlertGroup, toAlertEvent } from '../alertmanager.ts';
import { VALUE_ANNOTATION } from '../digest.ts';
import { MAX_SUMMARY_CHARS, groupKey, type AlertEvent } from '../event.ts';
import { clip } from '../../slack/limits.ts';
import { alertSecret, bearerOrBasicAuth } from './auth.ts';
import type { HttpAlertSource } from './types.ts';

export const grafanaAlertSchema = alertmanagerAlertSchema.extend({
  // Grafana sends null for a rule without numeric results (NoData, errors).
  values: z.record(z.string(), z.union([z.number(), z.string(), z.null()])).nullish(),
  valueString: z.string().optional(),
  dashboardURL: z.string().optional(),
  panelURL: z.string().optional(),
  silenceURL: z.string().optional(),
  imageURL: z.string().optional(),
});
type GrafanaAlert = z.infer<typeof grafanaAlertSchema>;

export const grafanaEnvelopeSchema = alertmanagerEnvelopeSchema.extend({
  version: z.literal('1', { error: 'only Grafana webhook payload version "1" is supported' }),
  orgId: z.number().int().default(1),
  title: z.string().optional(),
  state: z.string().optional(),
  message: z.string().optional(),
});
type GrafanaEnvelope = z.infer<typeof grafanaEnvelopeSchema>;

/** "B=44.2394, C=1" from values, else Grafana's own valueString. */
export function valueText(a: GrafanaAlert): string {
  const values = Object.entries(a.values ?? {});
  if (values.length) return values.map(([k, v]) => `${k}=${typeof v === 'number' ? Number(v.toPrecision(6)) : String(v)}`).join(', ');
  return a.valueString ?? '';
}

const isHttp = (url: string | undefined): url is string => Boolean(url && url.length <= 2000 && /^https?:\/\/\S+$/i.test(url));

function grafanaLinks(a: GrafanaAlert): NonNullable<AlertEvent['links']> {
  const links: [string, string | undefined][] = [['Dashboard', a.dashboardURL], ['Panel', a.panelURL], ['Silence', a.silenceURL], ['Alert rule', a.generatorURL]];
  return links.flatMap(([label, url]) => (isHttp(url) ? [{ label, url }] : []));
}

/** Grafana's notification as an alert group: Alertmanager's mapping, its values as evidence, its URLs as links. */
export function toGrafanaEvent(p: Omit<GrafanaEnvelope, 'alerts'> & { alerts: GrafanaAlert[] }, malformed = 0): AlertEvent {
  const alerts = p.alerts.map((a) => {
    const value = valueText(a);
    return value ? { ...a, annotations: { ...a.annotations, [VALUE_ANNOTATION]: clip(value, 1000) } } : a;
  });
  const base = toAlertEvent({ ...p, version: '4', alerts }, malformed);
  const first = p.alerts.find((a) => a.status === 'firing') ?? p.alerts[0]!;
  const evidence = valueText(first);
  const links = grafanaLinks(first);
  return {
    ...base,
    source: 'grafana',
    groupKey: groupKey(`gf:${p.orgId}:${p.receiver}:${p.groupKey}`),
    summary: clip(evidence ? `${base.summary}\nValues: ${clip(evidence, 500)}` : base.summary, MAX_SUMMARY_CHARS),
    ...(links.length ? { links } : {}),
  };
}

export const grafanaSource: HttpAlertSource = {
  name: 'grafana',
  label: 'Grafana',
  idPrefix: 'gf',
  kind: 'http',
  path: '/alerts/grafana',
  auth: bearerOrBasicAuth(alertSecret('grafana-token')),
  schema: grafanaEnvelopeSchema,
  maps: 'one thread per `orgId` + `receiver` + `groupKey`; labels as Alertmanager; `values` / `valueString` as each alert\'s evidence; `dashboardURL`, `panelURL`, `silenceURL`, `generatorURL` as links',
  parse: (body) => {
    const parsed = parseAlertGroup(body, grafanaEnvelopeSchema, grafanaAlertSchema, 'a Grafana webhook payload (version 1)');
    return parsed.ok ? { ok: true, value: [toGrafanaEvent({ ...parsed.value.envelope, alerts: parsed.value.alerts }, parsed.value.malformed)] } : parsed;
  },
  examples: [
    {
      title: 'consumer lag from a Grafana-managed rule',
      body: {
        receiver: 'kafka-responder',
        status: 'firing',
        orgId: 1,
        alerts: [
          {
            status: 'firing',
            labels: { alertname: 'KafkaConsumerLag', cluster: 'sandbox', topic: 'orders', grafana_folder: 'Kafka' },
            annotations: { summary: 'Consumer group billing lags on orders' },
            startsAt: '2026-11-29T06:58:10Z',
            endsAt: '0001-01-01T00:00:00Z',
            generatorURL: 'https://grafana.example/alerting/grafana/fe1x2y3/view',
            fingerprint: '57c6d9296de2ad39',
            silenceURL: 'https://grafana.example/alerting/silence/new?alertmanager=grafana&matcher=alertname%3DKafkaConsumerLag',
            dashboardURL: 'https://grafana.example/d/kafka-lag',
            panelURL: 'https://grafana.example/d/kafka-lag?viewPanel=4',
            values: { B: 120000, C: 1 },
            valueString: "[ var='B' labels={topic=orders} value=120000 ], [ var='C' labels={topic=orders} value=1 ]",
          },
        ],
        groupLabels: { alertname: 'KafkaConsumerLag' },
        commonLabels: { alertname: 'KafkaConsumerLag', cluster: 'sandbox', topic: 'orders' },
        commonAnnotations: { summary: 'Consumer group billing lags on orders' },
        externalURL: 'https://grafana.example/',
        version: '1',
        groupKey: '{}/{__grafana_autogenerated__="true"}:{alertname="KafkaConsumerLag"}',
        truncatedAlerts: 0,
        title: '[FIRING:1] KafkaConsumerLag (sandbox orders)',
        state: 'alerting',
        message: '**Firing**\n\nValue: B=120000, C=1\nLabels:\n - alertname = KafkaConsumerLag\n',
      },
    },
  ],
};
