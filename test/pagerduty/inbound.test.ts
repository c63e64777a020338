// The V3 envelope's schema and its mapping to the bot's alert event.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AlertEvent } from '../../lib/alerts/event.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { EXAMPLE_INCIDENT_ID, EXAMPLE_SERVICE_ID, PAGERDUTY_EXAMPLES } from '../../lib/pagerduty/examples.ts';
import { incidentIdOf, mapPagerDutyEvent, type PagerDutyAlertEvent } from '../../lib/pagerduty/inbound.ts';
import { parsePagerDutyWebhook, type PagerDutyWebhook } from '../../lib/pagerduty/webhook.ts';
import { BASE_CONFIG } from '../slack/helpers/harness.ts';

const parsed = (body: unknown): PagerDutyWebhook => {
  const r = parsePagerDutyWebhook(JSON.stringify(body));
  if (!r.ok) throw new Error(r.error);
  return r.webhook;
};
const BY_SERVICE = { services: { [EXAMPLE_SERVICE_ID]: 'sandbox' } };

describe('the V3 webhook schema', () => {
  it.each(Object.entries(PAGERDUTY_EXAMPLES))('parses the %s example', (_name, body) => {
    expect(parsePagerDutyWebhook(JSON.stringify(body)).ok).toBe(true);
  });

  it('refuses what is not the envelope, and an incident event without a valid incident', () => {
    expect(parsePagerDutyWebhook('{not json')).toEqual({ ok: false, error: 'body is not JSON' });
    expect(parsePagerDutyWebhook('{"messages": []}').ok).toBe(false);
    const bad = structuredClone(PAGERDUTY_EXAMPLES.triggered) as { event: { data: Record<string, unknown> } };
    bad.event.data.status = 'exploded';
    expect(parsePagerDutyWebhook(JSON.stringify(bad)).ok).toBe(false);
    const noService = structuredClone(PAGERDUTY_EXAMPLES.triggered) as { event: { data: Record<string, unknown> } };
    delete noService.event.data.service;
    expect(parsePagerDutyWebhook(JSON.stringify(noService)).ok).toBe(false);
  });

  it('keeps only https links: a javascript: or http: incident URL is refused', () => {
    for (const url of ['javascript:alert(1)', 'http://acme.pagerduty.com/incidents/X']) {
      const body = structuredClone(PAGERDUTY_EXAMPLES.triggered) as { event: { data: Record<string, unknown> } };
      body.event.data.html_url = url;
      expect(parsePagerDutyWebhook(JSON.stringify(body)).ok, url).toBe(false);
    }
  });

  it('accepts event types it does not handle (to ignore them with a reason)', () => {
    const other = { event: { ...PAGERDUTY_EXAMPLES.triggered.event, event_type: 'incident.priority_updated' } };
    expect(parsePagerDutyWebhook(JSON.stringify(other)).ok).toBe(true);
  });
});

describe('mapping to the alert event', () => {
  it('triggered: one group per incident, firing, the cluster from the service map, the incident linked', () => {
    const mapped = mapPagerDutyEvent(parsed(PAGERDUTY_EXAMPLES.triggered), BY_SERVICE);
    expect(mapped.kind).toBe('alert');
    if (mapped.kind !== 'alert') return;
    expect(mapped.incidentId).toBe(EXAMPLE_INCIDENT_ID);
    expect(mapped.event).toMatchObject({
      source: 'pagerduty',
      groupKey: `pagerduty:${EXAMPLE_INCIDENT_ID}`,
      status: 'firing',
      alertname: 'Kafka sandbox',
      title: '#2146 UnderReplicatedPartitions > 0 on orders',
      clusterHint: 'sandbox',
      at: '2026-03-02T09:14:07.402Z',
      count: 1,
      url: `https://acme.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}`,
      links: [
        { label: 'PagerDuty incident #2146', url: `https://acme.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}` },
        { label: 'PagerDuty service Kafka sandbox', url: `https://acme.pagerduty.com/service-directory/${EXAMPLE_SERVICE_ID}` },
      ],
    });
    expect(mapped.event.summary).toBe('triggered by Tenex Engineer · service Kafka sandbox · high urgency · priority P2');
    expect(mapped.event.labels).toMatchObject({ pagerduty_incident: EXAMPLE_INCIDENT_ID, pagerduty_service_id: EXAMPLE_SERVICE_ID, urgency: 'high', priority: 'P2', kafka_cluster: 'prod-msk' });
    expect(incidentIdOf(mapped.event)).toBe(EXAMPLE_INCIDENT_ID);
  });

  it('acknowledged stays firing (same group), resolved resolves it', () => {
    const ack = mapPagerDutyEvent(parsed(PAGERDUTY_EXAMPLES.acknowledged), BY_SERVICE);
    const res = mapPagerDutyEvent(parsed(PAGERDUTY_EXAMPLES.resolved), BY_SERVICE);
    expect(ack.kind === 'alert' && [ack.event.status, ack.event.groupKey]).toEqual(['firing', `pagerduty:${EXAMPLE_INCIDENT_ID}`]);
    expect(res.kind === 'alert' && [res.event.status, res.event.groupKey]).toEqual(['resolved', `pagerduty:${EXAMPLE_INCIDENT_ID}`]);
  });

  it('the cluster from a custom field when the service is not mapped; none when neither says', () => {
    const byField = mapPagerDutyEvent(parsed(PAGERDUTY_EXAMPLES.triggered), { services: {}, clusterField: 'kafka_cluster' });
    expect(byField.kind === 'alert' && byField.event.clusterHint).toBe('prod-msk');
    const unmapped = mapPagerDutyEvent(parsed(PAGERDUTY_EXAMPLES.triggered), { services: {} });
    expect(unmapped.kind === 'alert' && 'clusterHint' in unmapped.event).toBe(false);
    // The service map wins over the field.
    const both = mapPagerDutyEvent(parsed(PAGERDUTY_EXAMPLES.triggered), { ...BY_SERVICE, clusterField: 'kafka_cluster' });
    expect(both.kind === 'alert' && both.event.clusterHint).toBe('sandbox');
  });

  it('ignores incident.annotated (our own notes come back as it) and other event types, with a reason', () => {
    expect(mapPagerDutyEvent(parsed(PAGERDUTY_EXAMPLES.annotated), BY_SERVICE)).toEqual({ kind: 'ignored', reason: expect.stringMatching(/^incident\.annotated: a note on the incident/) });
    const priority = { event: { ...PAGERDUTY_EXAMPLES.triggered.event, event_type: 'incident.priority_updated' } };
    expect(mapPagerDutyEvent(parsed(priority), BY_SERVICE)).toEqual({ kind: 'ignored', reason: 'incident.priority_updated: does not change whether the incident is open' });
    const service = { event: { ...PAGERDUTY_EXAMPLES.triggered.event, event_type: 'service.updated', resource_type: 'service', data: { id: 'P1', type: 'service' } } };
    expect(mapPagerDutyEvent(parsed(service), BY_SERVICE)).toEqual({ kind: 'ignored', reason: 'service.updated: not an incident event' });
  });

  it('is an AlertEvent (lib/alerts imports this folder, so the type is checked here)', () => {
    expectTypeOf<PagerDutyAlertEvent>().toExtend<AlertEvent>();
  });

  it('the config section: service map, custom field, loopback-only http, defaults', () => {
    const config = parseConfig({ ...BASE_CONFIG, pagerduty: { incidents: { services: { PKAFKA1: 'sandbox' }, clusterField: 'kafka_cluster' }, changeEvents: {}, eventsApiUrl: 'http://127.0.0.1:9999/' } });
    expect(config.pagerduty).toMatchObject({ eventsApiUrl: 'http://127.0.0.1:9999', restApiUrl: 'https://api.pagerduty.com', changeEvents: { enabled: true, source: 'kafka-responder' }, delivery: { maxAttempts: 8, firstRetryMs: 30_000, timeoutMs: 5_000 } });
    expect(() => parseConfig({ ...BASE_CONFIG, pagerduty: { eventsApiUrl: 'http://events.example.com' } })).toThrow(/pagerduty\.eventsApiUrl/);
    expect(() => parseConfig({ ...BASE_CONFIG, pagerduty: { notes: { fromEmail: 'not-an-email' } } })).toThrow(/pagerduty\.notes\.fromEmail/);
    expect(parseConfig(BASE_CONFIG).pagerduty).toBeUndefined();
  });
});
