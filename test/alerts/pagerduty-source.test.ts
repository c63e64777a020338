// PagerDuty as an alert source: the signature from the headers and on the raw
// bytes (rotation, a bad one, none), events we do not handle answered 2xx,
// serve's exact bytes, and the worker's mapping of the incident to a cluster.
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { AlertEvent } from '../../lib/alerts/event.ts';
import { createHttpAlertHandler } from '../../lib/alerts/intake.ts';
import { routeAlert } from '../../lib/alerts/routing.ts';
import { ALERT_SOURCES } from '../../lib/alerts/sources/index.ts';
import { pagerDutyAuth, pagerdutySource } from '../../lib/alerts/sources/pagerduty.ts';
import { renderTriageParent } from '../../lib/alerts/thread-messages.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { toHttpEvent } from '../../lib/local/http-events.ts';
import { EXAMPLE_INCIDENT_ID, EXAMPLE_SERVICE_ID, PAGERDUTY_EXAMPLES } from '../../lib/pagerduty/examples.ts';
import { incidentIdOf } from '../../lib/pagerduty/inbound.ts';
import type { Job } from '../../lib/queue/job.ts';
import type { HttpEvent } from '../../lib/runtime/lambda-types.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG } from '../slack/helpers/harness.ts';

const OLD = 'pd-old-secret-0123456789abcdef';
const NEW = 'pd-new-secret-fedcba9876543210';
const sign = (body: string | Buffer, secret: string) => `v1=${createHmac('sha256', secret).update(body).digest('hex')}`;

function setup(secrets = `${NEW}\n${OLD}`) {
  const enqueued: Job[] = [];
  const queue = { enqueue: async (j: Job) => void enqueued.push(j) };
  const handler = createHttpAlertHandler(pagerdutySource, { queue, store: new MemoryStateStore(), log: recordingLog(), secret: secrets });
  const post = async (body: unknown, signature: string | null | ((raw: string) => string) = (raw) => sign(raw, NEW)) => {
    const raw = JSON.stringify(body);
    const sig = typeof signature === 'function' ? signature(raw) : signature;
    const event: HttpEvent = { rawPath: '/alerts/pagerduty', headers: { 'content-type': 'application/json', ...(sig ? { 'x-pagerduty-signature': sig } : {}) }, body: raw, requestContext: { http: { method: 'POST' } } };
    const res = await handler(event);
    return { statusCode: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
  };
  return { enqueued, post, event: () => enqueued.at(-1)!.payload as AlertEvent };
}

describe('PagerDuty source: the table line and the signature', () => {
  it('is in ALERT_SOURCES at POST /alerts/pagerduty with the webhook secrets parameter', () => {
    expect(ALERT_SOURCES).toContain(pagerdutySource);
    expect(pagerdutySource).toMatchObject({ name: 'pagerduty', label: 'PagerDuty', kind: 'http', path: '/alerts/pagerduty' });
    expect(pagerDutyAuth.secret).toEqual({ parameter: 'pagerduty-webhook-secrets', valueVar: 'PAGERDUTY_WEBHOOK_SECRETS', parameterVar: 'KR_PAGERDUTY_WEBHOOK_SECRETS_PARAMETER' });
  });

  it('a signed incident.triggered is 202 and one firing event carrying the service id, the incident and its links', async () => {
    const { post, enqueued, event } = setup();
    const res = await post(PAGERDUTY_EXAMPLES.triggered);
    expect(res.statusCode).toBe(202);
    expect(res.body).toMatchObject({ accepted: true, alerts: 1 });
    expect(enqueued).toHaveLength(1);
    const e = event();
    expect(e).toMatchObject({ source: 'pagerduty', status: 'firing', groupKey: `pagerduty:${EXAMPLE_INCIDENT_ID}`, url: `https://acme.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}` });
    expect(e.labels).toMatchObject({ pagerduty_service_id: EXAMPLE_SERVICE_ID, kafka_cluster: 'prod-msk' });
    // No config in the alerts function: the worker maps the service.
    expect(e.clusterHint).toBeUndefined();
    expect(incidentIdOf(e)).toBe(EXAMPLE_INCIDENT_ID);
    expect(e.links?.[0]).toEqual({ label: 'PagerDuty incident #2146', url: `https://acme.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}` });
  });

  it('a body signed with the old secret during a rotation is accepted, as is a header carrying both signatures', async () => {
    const { post } = setup();
    expect((await post(PAGERDUTY_EXAMPLES.triggered, (raw) => sign(raw, OLD))).statusCode).toBe(202);
    expect((await post(PAGERDUTY_EXAMPLES.triggered, (raw) => `${sign(raw, 'some-other-secret-000000')},${sign(raw, OLD)}`)).statusCode).toBe(202);
  });

  it('a bad signature is 401 and nothing is enqueued', async () => {
    const { post, enqueued } = setup(NEW);
    expect((await post(PAGERDUTY_EXAMPLES.triggered, (raw) => sign(raw, OLD))).statusCode).toBe(401);
    expect((await post(PAGERDUTY_EXAMPLES.triggered, (raw) => sign(`${raw} `, NEW))).statusCode).toBe(401);
    expect((await post(PAGERDUTY_EXAMPLES.triggered, 'v1=zz')).statusCode).toBe(401);
    expect(enqueued).toHaveLength(0);
  });

  it('no X-PagerDuty-Signature is refused from the headers alone, before the body is read', async () => {
    expect(pagerDutyAuth.checkHeaders(() => undefined, NEW)).toMatch(/missing X-PagerDuty-Signature/);
    expect(pagerDutyAuth.checkHeaders((n) => (n === 'x-pagerduty-signature' ? 'v1=00' : undefined), NEW)).toBeNull();
    const { post, enqueued } = setup();
    const res = await post(PAGERDUTY_EXAMPLES.triggered, null);
    expect(res.statusCode).toBe(401);
    expect(enqueued).toHaveLength(0);
  });

  it('incident.annotated and other events are answered 2xx and ignored (PagerDuty does not retry them)', async () => {
    const { post, enqueued } = setup();
    expect((await post(PAGERDUTY_EXAMPLES.annotated)).statusCode).toBe(202);
    const priority = { event: { ...PAGERDUTY_EXAMPLES.annotated.event, event_type: 'incident.priority_updated', data: { id: 'X' } } };
    expect((await post(priority)).statusCode).toBe(202);
    const service = { event: { ...PAGERDUTY_EXAMPLES.annotated.event, event_type: 'service.updated', resource_type: 'service', data: { id: 'PKAFKA1' } } };
    expect((await post(service)).statusCode).toBe(202);
    expect(enqueued).toHaveLength(0);
  });

  it('acknowledged keeps the incident firing, resolved resolves the same group; a malformed incident is 4xx', async () => {
    const { post, event } = setup();
    await post(PAGERDUTY_EXAMPLES.acknowledged);
    expect(event()).toMatchObject({ status: 'firing', groupKey: `pagerduty:${EXAMPLE_INCIDENT_ID}` });
    expect(event().summary).toMatch(/^acknowledged by Tenex Engineer/);
    await post(PAGERDUTY_EXAMPLES.resolved);
    expect(event()).toMatchObject({ status: 'resolved', groupKey: `pagerduty:${EXAMPLE_INCIDENT_ID}` });
    expect((await post({ event: { ...PAGERDUTY_EXAMPLES.triggered.event, data: { id: 'X' } } })).statusCode).toBe(422);
  });
});

describe("PagerDuty through serve's request conversion: the signature is on the exact bytes", () => {
  const req = (body: Buffer, signature: string) => ({ url: '/alerts/pagerduty', method: 'POST', headers: { 'content-type': 'application/json', 'x-pagerduty-signature': signature }, socket: { remoteAddress: '127.0.0.1' } }) as unknown as IncomingMessage;
  const withByte = (byte: number) => {
    const json = JSON.stringify(PAGERDUTY_EXAMPLES.triggered).replace('Tenex Engineer', 'Tenex XEngineer');
    const buf = Buffer.from(json, 'utf8');
    buf[buf.indexOf('XEngineer')] = byte;
    return buf;
  };

  it('a body that is not UTF-8 is verified on its own bytes: signed as sent, accepted', async () => {
    const { enqueued } = setup();
    const handler = createHttpAlertHandler(pagerdutySource, { queue: { enqueue: async (j: Job) => void enqueued.push(j) }, store: new MemoryStateStore(), log: recordingLog(), secret: NEW });
    const body = withByte(0xff);
    expect((await handler(toHttpEvent(req(body, sign(body, NEW)), body))).statusCode).toBe(202);
    expect(enqueued).toHaveLength(1);
  });

  it('two bodies that decode to the same text are still two bodies: a signature over one does not pass the other', async () => {
    const handler = createHttpAlertHandler(pagerdutySource, { queue: { enqueue: async () => {} }, store: new MemoryStateStore(), log: recordingLog(), secret: NEW });
    const signed = withByte(0xff);
    const sent = withByte(0xfe);
    expect(signed.toString('utf8')).toBe(sent.toString('utf8'));
    expect((await handler(toHttpEvent(req(sent, sign(signed, NEW)), sent))).statusCode).toBe(401);
  });
});

describe('the worker maps the incident to a cluster (pagerduty.incidents)', () => {
  const eventOf = (body: unknown) => {
    const parsed = pagerdutySource.parse(JSON.stringify(body));
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.value[0]!;
  };
  const config = (incidents: Record<string, unknown> | undefined) => parseConfig({ ...BASE_CONFIG, ...(incidents ? { pagerduty: { incidents } } : {}) });

  it('by the service id, as docs/pagerduty.md writes it', () => {
    const routed = routeAlert(eventOf(PAGERDUTY_EXAMPLES.triggered), config({ services: { [EXAMPLE_SERVICE_ID]: 'sandbox' } }));
    expect(routed.cluster?.name).toBe('sandbox');
    expect(routed.unmapped).toBeUndefined();
  });

  it("else by the custom field the config names (its value an alias: prod-msk is sandbox's)", () => {
    expect(routeAlert(eventOf(PAGERDUTY_EXAMPLES.triggered), config({ clusterField: 'kafka_cluster' })).cluster?.name).toBe('sandbox');
  });

  it('an unmapped service goes to no cluster (not the default) and the thread is told the mapping to add', () => {
    for (const c of [config(undefined), config({ services: { POTHER1: 'sandbox' } })]) {
      const routed = routeAlert(eventOf(PAGERDUTY_EXAMPLES.triggered), c);
      expect(routed.cluster).toBeUndefined();
      expect(routed.unmapped?.why).toContain(EXAMPLE_SERVICE_ID);
      expect(routed.unmapped?.fix).toContain(`"${EXAMPLE_SERVICE_ID}": "&lt;cluster&gt;"`);
      expect(routed.unmapped?.fix).toContain('pagerduty.incidents.services');
    }
    const wrong = routeAlert(eventOf(PAGERDUTY_EXAMPLES.triggered), config({ services: { [EXAMPLE_SERVICE_ID]: 'nowhere' } }));
    expect(wrong.cluster).toBeUndefined();
    expect(wrong.unmapped?.why).toContain('"nowhere"');
  });

  it("the thread's parent names PagerDuty and links the incident, escaped", () => {
    const e = eventOf(PAGERDUTY_EXAMPLES.triggered);
    const hostile = { ...e, title: '<!channel> #1 *boom*', links: [{ label: 'PagerDuty <incident>|x', url: 'https://acme.pagerduty.com/incidents/Q1?a=1&b=<2>' }] };
    const routed = routeAlert(e, config({ services: { [EXAMPLE_SERVICE_ID]: 'sandbox' } }));
    const text = JSON.stringify(renderTriageParent(hostile, routed, { status: 'firing', flapping: false, cycles: 0, windowMinutes: 60 }).blocks);
    expect(text).toContain('*Source:* PagerDuty');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('<https://acme.pagerduty.com/incidents/Q1?a=1&amp;b=&lt;2&gt;|PagerDuty &lt;incident&gt;x>');
  });
});
