// Grafana Alerting's webhook: schema, mapping to an alert group, the thread
// it makes (values as evidence, links escaped), and its authentication.
import { describe, expect, it } from 'vitest';
import { createHttpAlertHandler } from '../../lib/alerts/intake.ts';
import { checkBearer, checkBearerOrBasic, safeEqual } from '../../lib/alerts/sources/auth.ts';
import { grafanaSource } from '../../lib/alerts/sources/grafana.ts';
import { renderDigestReply } from '../../lib/alerts/big-group-reply.ts';
import { renderTriageParent } from '../../lib/alerts/thread-messages.ts';
import { routeAlert } from '../../lib/alerts/routing.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import type { AlertEvent } from '../../lib/alerts/event.ts';
import type { Job } from '../../lib/queue/job.ts';
import type { HttpEvent } from '../../lib/runtime/lambda-types.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG } from '../slack/helpers/harness.ts';
import { bigGrafanaNotification, grafanaExample, hugeAnnotationGrafana } from './fixtures/grafana.ts';
import { alertmanagerPayload } from './fixtures/samples.ts';
import { createAlertmanagerHandler } from '../../lib/alerts/intake.ts';

const TOKEN = 'grafana-token-0123456789abcdef';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function setup() {
  const enqueued: Job[] = [];
  const queue = { enqueue: async (j: Job) => void enqueued.push(j) };
  const handler = createHttpAlertHandler(grafanaSource, { queue, store: new MemoryStateStore(), log: recordingLog(), secret: TOKEN });
  const post = (body: unknown, authorization: string | null = `Bearer ${TOKEN}`): Promise<{ statusCode: number; body: string }> => {
    const event: HttpEvent = { rawPath: '/alerts/grafana', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body: JSON.stringify(body), requestContext: { http: { method: 'POST' } } };
    return handler(event);
  };
  return { enqueued, post, event: () => enqueued.at(-1)!.payload as AlertEvent };
}

describe('Grafana webhook: schema and mapping', () => {
  it("maps Grafana's documented example to one group: groupKey, values as evidence, links", async () => {
    const { post, event, enqueued } = setup();
    const res = await post(grafanaExample());
    expect(res.statusCode).toBe(202);
    expect(JSON.parse(res.body)).toMatchObject({ accepted: true, alerts: 2 });
    expect(enqueued).toHaveLength(1);
    const e = event();
    expect(e).toMatchObject({ source: 'grafana', groupKey: 'gf:1:My Super Webhook:{}:{}', status: 'firing', alertname: 'High memory usage', count: 2, url: 'https://play.grafana.org/' });
    expect(e.summary).toContain('This alert was triggered for zone us-1');
    expect(e.summary).toContain('Values: B=44.2394, C=1');
    expect(e.links).toEqual([
      { label: 'Dashboard', url: 'https://play.grafana.org/d/a1b2c3d4/kafka-brokers?orgId=1' },
      { label: 'Panel', url: 'https://play.grafana.org/d/a1b2c3d4/kafka-brokers?orgId=1&viewPanel=3' },
      { label: 'Silence', url: 'https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT2%2Cteam%3Dblue%2Czone%3Dus-1' },
      { label: 'Alert rule', url: 'https://play.grafana.org/alerting/1afz29v7z/edit' },
    ]);
    expect(e.digest?.alerts[0]?.annotations.__value__).toBe('B=44.2394, C=1');
  });

  it('a resolved notification resolves the same group', async () => {
    const { post, event } = setup();
    await post(grafanaExample());
    const firing = event().groupKey;
    await post(grafanaExample({ status: 'resolved' }));
    expect(event()).toMatchObject({ groupKey: firing, status: 'resolved' });
  });

  it("refuses Alertmanager's version on Grafana's route (422, with the reason); takes Grafana's on Alertmanager's as Grafana's, since Grafana never retries a 4xx", async () => {
    const { post } = setup();
    const res = await post(alertmanagerPayload('firing'));
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('only Grafana webhook payload version');
    const queued: { payload: AlertEvent }[] = [];
    const am = createAlertmanagerHandler({ queue: { enqueue: async (job: Job) => void queued.push(job as never) }, store: new MemoryStateStore(), log: recordingLog(), bearerToken: TOKEN });
    const taken = await am({ rawPath: '/alerts/alertmanager', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(grafanaExample()), requestContext: { http: { method: 'POST' } } });
    expect(taken.statusCode).toBe(202);
    expect(queued).toHaveLength(1);
    expect(queued[0]!.payload).toMatchObject({ source: 'grafana', status: 'firing' });
    expect(queued[0]!.payload.links?.length).toBeGreaterThan(0);
  });

  it('accepts null values (NoData) and a missing valueString; drops non-http links', async () => {
    const { post, event } = setup();
    const p = grafanaExample() as { alerts: Record<string, unknown>[] };
    p.alerts = p.alerts.map((a) => ({ ...a, values: null, valueString: undefined, dashboardURL: 'javascript:alert(1)', panelURL: '' }));
    expect((await post(p)).statusCode).toBe(202);
    expect(event().links?.map((l) => l.label)).toEqual(['Silence', 'Alert rule']);
    expect(event().summary).not.toContain('Values:');
  });

  it('10,000 alerts: one bounded event, counted by severity', async () => {
    const { post, event } = setup();
    const res = await post(bigGrafanaNotification(10_000, { resolved: 10 }));
    expect(res.statusCode).toBe(202);
    const e = event();
    expect(e.count).toBe(10_000);
    expect(e.digest).toMatchObject({ total: 10_000, firing: 9_990, resolved: 10 });
    expect(e.digest!.alerts).toHaveLength(50);
    expect(JSON.stringify(e).length).toBeLessThan(100_000);
    expect(renderDigestReply(e.digest!).text).toBe('This group holds 10,000 alerts (9,990 firing, 10 resolved), 20 shown');
    expect(JSON.stringify(renderDigestReply(e.digest!).blocks)).toContain('values `B=1, C=1`');
  });

  it('a 900 KB annotation: accepted, cut in the digest and the summary', async () => {
    const { post, event } = setup();
    expect((await post(hugeAnnotationGrafana())).statusCode).toBe(202);
    expect(JSON.stringify(event()).length).toBeLessThan(20_000);
  });
});

describe('Grafana in the thread', () => {
  it('the parent names Grafana and carries its links, targets and labels escaped', async () => {
    const { post, event } = setup();
    const p = grafanaExample() as { alerts: Record<string, unknown>[] };
    p.alerts[0] = { ...p.alerts[0], dashboardURL: 'https://g.example/d/x?a=1&b=<!channel>|click' };
    await post(p);
    const e = event();
    const routed = routeAlert(e, parseConfig(BASE_CONFIG));
    const parent = JSON.stringify(renderTriageParent(e, routed, { status: 'firing', flapping: false, cycles: 0, windowMinutes: 60 }).blocks);
    expect(parent).toContain('*Source:* Grafana');
    expect(parent).toContain('<https://g.example/d/x?a=1&amp;b=&lt;!channel&gt;%7Cclick|Dashboard>');
    expect(parent).toContain('|Silence>');
    expect(parent).toContain('<https://play.grafana.org/|open in Grafana>');
    expect(parent).not.toContain('<!channel>');
  });
});

describe('authentication', () => {
  it('takes the token as bearer or as the Basic password (any user name)', async () => {
    const { post } = setup();
    expect((await post(grafanaExample(), `Bearer ${TOKEN}`)).statusCode).toBe(202);
    expect((await post(grafanaExample(), basic('grafana', TOKEN))).statusCode).toBe(202);
    expect((await post(grafanaExample(), basic('', TOKEN))).statusCode).toBe(202);
  });

  it.each([
    ['no header', null],
    ['a wrong bearer', 'Bearer not-the-token-at-all-000'],
    ['a wrong Basic password', basic('grafana', 'wrong-password-0123456789')],
    ['the token as Basic user name', basic(TOKEN, '')],
    ['Basic without a colon', `Basic ${Buffer.from(TOKEN).toString('base64')}`],
    ['another scheme', `Token ${TOKEN}`],
  ])('401 for %s, nothing enqueued', async (_label, authorization) => {
    const { post, enqueued } = setup();
    const res = await post(grafanaExample(), authorization);
    expect(res.statusCode).toBe(401);
    expect(enqueued).toHaveLength(0);
  });

  it('refuses a short secret at start-up', () => {
    expect(() => createHttpAlertHandler(grafanaSource, { queue: { enqueue: async () => {} }, store: new MemoryStateStore(), log: recordingLog(), secret: 'short' })).toThrow(/Grafana token must be at least 16/);
  });

  it('safeEqual compares whole strings, whatever their lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', 'x')).toBe(false);
    expect(checkBearer('Bearer abc', 'abc')).toBeNull();
    expect(checkBearerOrBasic('bearer abc', 'abc')).toBeNull();
    expect(checkBearerOrBasic(basic('u', 'p:with:colons'), 'p:with:colons')).toBeNull();
  });
});
