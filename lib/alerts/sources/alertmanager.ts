// Prometheus Alertmanager's webhook (payload version 4), bearer token.
// A Grafana contact point pointed here by mistake (Alertmanager's shape,
// version 1) is taken as Grafana's: Grafana never retries a 4xx, so a refusal
// would lose its alerts.
import { alertmanagerEnvelopeSchema, parseAlertmanager } from '../alertmanager.ts';
import { ALERTMANAGER_SECRET, bearerAuth } from './auth.ts';
import { grafanaSource } from './grafana.ts';
import type { HttpAlertSource } from './types.ts';

export const alertmanagerSource: HttpAlertSource = {
  name: 'alertmanager',
  label: 'Alertmanager',
  idPrefix: 'am',
  kind: 'http',
  path: '/alerts/alertmanager',
  auth: bearerAuth(ALERTMANAGER_SECRET),
  schema: alertmanagerEnvelopeSchema,
  maps: 'one thread per `receiver` + `groupKey`; cluster, topic, broker from labels; severity and status counted in the digest; `externalURL` linked; a Grafana notification (version 1) sent here is taken as Grafana\'s',
  parse: (body) => {
    const parsed = parseAlertmanager(body);
    if (parsed.ok) return { ok: true, value: [parsed.value] };
    // Only on the refusal path: a version-4 notification is parsed once.
    const asGrafana = grafanaSource.parse(body);
    return asGrafana.ok ? asGrafana : parsed;
  },
  examples: [
    {
      title: 'under-replicated partitions on one broker',
      body: {
        version: '4',
        groupKey: '{}:{alertname="KafkaUnderReplicatedPartitions", cluster="sandbox"}',
        truncatedAlerts: 0,
        status: 'firing',
        receiver: 'kafka-responder',
        groupLabels: { alertname: 'KafkaUnderReplicatedPartitions', cluster: 'sandbox' },
        commonLabels: { alertname: 'KafkaUnderReplicatedPartitions', cluster: 'sandbox', broker: 'kafka-2:9092', severity: 'critical' },
        commonAnnotations: { summary: 'Broker 2 reports 12 under-replicated partitions' },
        externalURL: 'http://alertmanager:9093',
        alerts: [
          {
            status: 'firing',
            labels: { alertname: 'KafkaUnderReplicatedPartitions', cluster: 'sandbox', broker: 'kafka-2:9092', topic: 'orders', severity: 'critical' },
            annotations: { summary: 'Broker 2 reports 12 under-replicated partitions' },
            startsAt: '2026-11-29T06:58:10.123Z',
            fingerprint: 'c4b4a6d5f2f1e0a9',
          },
        ],
      },
    },
  ],
};
