// The packaged alerts Lambda (handlers/alerts.ts bundled as serverless.yml
// bundles it) behind an API Gateway HTTP API stand-in, on moto's SQS, DynamoDB
// and SSM; the packaged worker Lambda takes the queue's messages as the event
// source mapping would (batch of one) and posts to the Slack stub. 10,000 and
// 20,000 alerts, one alert with a 900 KB annotation and a payload too large
// for a message: each accepted (2xx), SQS (moto enforces 256 KiB) holds no
// message over the limit, and each group gets one thread with the right counts.
// One moto, one pair of functions for every case.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQS_MAX_MESSAGE_BYTES } from '../../lib/queue/oversize.ts';
import { waitFor } from '../operations/serve-harness.ts';
import { createIntakeResources, drainQueue, hasMoto, sqsEvent, startMoto, type Moto } from '../deploy/moto.ts';
import { packageLambda, startLambdaHost, type LambdaHost } from '../deploy/lambda-package.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { BIG_CLUSTER, bigNotification, hugeAnnotationNotification, richNotification } from './fixtures/big.ts';
import { bigGrafanaNotification, grafanaExample } from './fixtures/grafana.ts';
import { EXAMPLE_INCIDENT_ID, EXAMPLE_SERVICE_ID, PAGERDUTY_EXAMPLES } from '../../lib/pagerduty/examples.ts';

const TOKEN = 'am-token-intake-lambda-0123456789';
const GRAFANA_TOKEN = 'grafana-token-intake-lambda-0123';
const PD_SECRET = 'pd-webhook-secret-lambda-0123456789';
const STAGE = 'ci';
// Ports from this run's range (KR_SANDBOX_PORT_BASE + 90..99), clear of the sandbox's own.
const BASE = Number(process.env.KR_SANDBOX_PORT_BASE ?? 29090) + 90;
const CONFIG = {
  clusters: [{ name: 'sandbox', bootstrap: ['127.0.0.1:1'] }],
  slack: { allowedTeams: ['T0TEST'], allowedChannels: ['C0INCIDENT'], incidentChannel: 'C0INCIDENT' },
};

describe.skipIf(!hasMoto())('the packaged alerts Lambda on moto', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kr-lambda-'));
  const stub = new SlackStub();
  const timings: string[] = [];
  let moto: Moto;
  let alerts: LambdaHost;
  let worker: LambdaHost;
  let queueUrl = '';
  const messages: Message[] = [];

  beforeAll(async () => {
    const t0 = Date.now();
    const [alertsBundle, workerBundle] = await Promise.all([packageLambda('alerts', dir), packageLambda('worker', dir)]);
    timings.push(`packaged in ${Date.now() - t0} ms (alerts ${(alertsBundle.bytes / 1e6).toFixed(2)} MB, worker ${(workerBundle.bytes / 1e6).toFixed(2)} MB)`);
    moto = await startMoto(BASE);
    await stub.start(BASE + 1);
    const parameters = {
      [`/kafka-responder/${STAGE}/alertmanager-token`]: { value: TOKEN, secure: true },
      [`/kafka-responder/${STAGE}/grafana-token`]: { value: GRAFANA_TOKEN, secure: true },
      // Two lines: a rotation under way.
      [`/kafka-responder/${STAGE}/pagerduty-webhook-secrets`]: { value: `${PD_SECRET}\nold-pd-secret-0123456789abcdef`, secure: true },
      [`/kafka-responder/${STAGE}/slack-bot-token`]: { value: 'xoxb-moto', secure: true },
      [`/kafka-responder/${STAGE}/config`]: { value: JSON.stringify(CONFIG) },
    };
    const resources = await createIntakeResources(moto, STAGE, parameters);
    queueUrl = resources.queueUrl;
    // serverless.yml's environment for each function (provider + function), moto for AWS.
    const common = { ...moto.awsEnv, ...resources.env, POWERTOOLS_SERVICE_NAME: 'kafka-responder', LOG_LEVEL: 'INFO' };
    alerts = await startLambdaHost(alertsBundle.path, 'alertmanager', BASE + 2, { ...common, KR_ALERTMANAGER_TOKEN_PARAMETER: `/kafka-responder/${STAGE}/alertmanager-token`, KR_GRAFANA_TOKEN_PARAMETER: `/kafka-responder/${STAGE}/grafana-token`, KR_PAGERDUTY_WEBHOOK_SECRETS_PARAMETER: `/kafka-responder/${STAGE}/pagerduty-webhook-secrets` }, 10);
    worker = await startLambdaHost(workerBundle.path, 'handler', BASE + 3, {
      ...common,
      KR_SLACK_BOT_TOKEN_PARAMETER: `/kafka-responder/${STAGE}/slack-bot-token`,
      KR_CONFIG_PARAMETER: `/kafka-responder/${STAGE}/config`,
      KR_SSM_DOCUMENT_PREFIX: `kafka-responder-${STAGE}-`,
      SLACK_API_URL: stub.apiUrl,
    }, 180);
  }, 180_000);

  afterAll(async () => {
    console.log(`[intake-lambda] ${timings.join('; ')}`);
    await alerts?.stop();
    await worker?.stop();
    await stub.stop();
    await moto?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** POSTs through the HTTP API stand-in, then hands every queued message to the worker. */
  async function deliver(label: string, payload: unknown, route = '/alerts/alertmanager', authorization = `Bearer ${TOKEN}`): Promise<void> {
    const body = JSON.stringify(payload);
    const t0 = Date.now();
    const res = await fetch(`${alerts.url}/http${route}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body });
    const answer = await res.text();
    timings.push(`${label} (${(body.length / 1e6).toFixed(2)} MB): ${res.status} in ${Date.now() - t0} ms`);
    expect(res.status, answer).toBe(202);
    const got = await drainQueue(moto, queueUrl);
    expect(got).toHaveLength(1);
    messages.push(...got);
    for (const m of got) expect(await worker.invoke(sqsEvent(m))).toEqual({ batchItemFailures: [] });
  }

  const all = (m: StubMessage) => `${m.text}\n${JSON.stringify(m.blocks)}`;
  const threadWith = (marker: string) =>
    waitFor(`the thread with "${marker}"`, () => {
      const parents = stub.topLevel().filter((m) => all(m).includes(marker));
      if (parents.length > 1) throw new Error(`${parents.length} threads with "${marker}"`);
      return parents[0] && { parent: parents[0], replies: stub.thread(parents[0].ts) };
    }, 30_000, 200);

  it.each([
    ['10,000 alerts', 10_000],
    ['20,000 alerts', 20_000],
  ])('%s: 202, one message under the limit, one thread with the right counts', async (label, n) => {
    await deliver(label, bigNotification(n, { group: `lambda-${n}`, resolved: 100 }));
    const total = n.toLocaleString('en-US');
    const firing = (n - 100).toLocaleString('en-US');
    const { replies } = await threadWith(`*Alerts in group:* ${total} alerts (${firing} firing, 100 resolved), 20 shown in the thread`);
    expect(replies.map((r) => r.text)).toContain(`This group holds ${total} alerts (${firing} firing, 100 resolved), 20 shown`);
  });

  it('one alert with a 900 KB annotation: 202, a small message, one thread', async () => {
    await deliver('900 KB annotation', hugeAnnotationNotification(900 * 1024, 'lambda-huge'));
    expect(Buffer.byteLength(messages.at(-1)!.Body!)).toBeLessThan(16 * 1024);
    const { replies } = await threadWith('KafkaBrokerDown');
    expect(replies.map((r) => r.text)).toContain('No diagnosis: unknown cluster');
  });

  it('a digest too large for a message: stored in the state table (moto DynamoDB), read back by the worker, one thread', async () => {
    await deliver('rich annotations', richNotification(60, 8, 'lambda-rich'));
    expect(JSON.parse(messages.at(-1)!.Body!).payload.spilled.parts).toBeGreaterThanOrEqual(1);
    const { replies } = await threadWith('*Alerts in group:* 60 alerts (');
    expect(replies.map((r) => r.text)).toContain('This group holds 60 alerts (60 firing, 0 resolved), 20 shown');
    expect(worker.logs.join('')).toContain('alert payload read back from the state table');
  });

  it('one thread per group, no message over SQS\'s limit, and the function\'s peak memory', async () => {
    expect(stub.topLevel()).toHaveLength(4);
    expect(messages).toHaveLength(4);
    for (const m of messages) expect(Buffer.byteLength(m.Body!)).toBeLessThanOrEqual(SQS_MAX_MESSAGE_BYTES);
    const rss = await alerts.maxRssBytes();
    timings.push(`alerts function peak RSS ${(rss / 1024 / 1024).toFixed(0)} MB (memorySize 512)`);
    expect(rss).toBeLessThan(512 * 1024 * 1024);
  });
  // Grafana's route on the same function (dispatched by path, its own SecureString).
  it("Grafana's documented example: 202, one thread with Grafana's links", async () => {
    await deliver('Grafana example', grafanaExample({ cluster: BIG_CLUSTER, groupKey: '{}:{lambda-example}' }), '/alerts/grafana', `Bearer ${GRAFANA_TOKEN}`);
    const { parent, replies } = await threadWith('High memory usage');
    expect(all(parent)).toContain('*Source:* Grafana');
    expect(all(parent)).toContain('|Silence>');
    expect(all(parent)).toContain('<https://play.grafana.org/d/a1b2c3d4/kafka-brokers?orgId=1|Dashboard>');
    expect(replies.map((r) => r.text)).toContain('This group holds 2 alerts (2 firing, 0 resolved), 2 shown');
  });

  it("10,000 alerts in Grafana's shape (Basic auth): 202, one message under the limit, one thread with the count", async () => {
    await deliver('Grafana 10,000 alerts', bigGrafanaNotification(10_000, { group: 'lambda-grafana', resolved: 100 }), '/alerts/grafana', `Basic ${Buffer.from(`grafana:${GRAFANA_TOKEN}`).toString('base64')}`);
    expect(Buffer.byteLength(messages.at(-1)!.Body!)).toBeLessThanOrEqual(SQS_MAX_MESSAGE_BYTES);
    const { parent, replies } = await threadWith('*Source:* Grafana · `KafkaUnderReplicatedPartitions`');
    expect(all(parent)).toContain('10,000 alerts (9,900 firing, 100 resolved), 20 shown in the thread');
    expect(all(parent)).toContain('<https://grafana/d/kafka?viewPanel=7|Panel>');
    expect(replies.map((r) => r.text)).toContain('This group holds 10,000 alerts (9,900 firing, 100 resolved), 20 shown');
  });

  it("a wrong token on Grafana's route (or Alertmanager's token there) is 401 and queues nothing", async () => {
    for (const authorization of ['Bearer not-the-grafana-token-0123', `Bearer ${TOKEN}`, `Basic ${Buffer.from('grafana:wrong-0123456789abcdef').toString('base64')}`]) {
      const res = await fetch(`${alerts.url}/http/alerts/grafana`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(grafanaExample()) });
      expect(res.status).toBe(401);
    }
    expect(await drainQueue(moto, queueUrl)).toHaveLength(0);
  });

  // PagerDuty's route on the same function: X-PagerDuty-Signature over the raw body, its own SecureString.
  const pagerduty = (body: unknown, secret: string) => {
    const raw = JSON.stringify(body);
    const signature = `v1=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    return fetch(`${alerts.url}/http/alerts/pagerduty`, { method: 'POST', headers: { 'x-pagerduty-signature': signature, 'content-type': 'application/json' }, body: raw });
  };

  it('a signed PagerDuty incident.triggered: 202, one thread linking the incident (its service unmapped here: the thread says which entry to add)', async () => {
    const res = await pagerduty(PAGERDUTY_EXAMPLES.triggered, PD_SECRET);
    expect(res.status, await res.text()).toBe(202);
    const got = await drainQueue(moto, queueUrl);
    expect(got).toHaveLength(1);
    for (const m of got) expect(await worker.invoke(sqsEvent(m))).toEqual({ batchItemFailures: [] });
    const { parent, replies } = await threadWith('*Source:* PagerDuty');
    expect(all(parent)).toContain(`<https://acme.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}|PagerDuty incident #2146>`);
    expect(replies.map(all).join('\n')).toContain(JSON.stringify(`"${EXAMPLE_SERVICE_ID}": "&lt;cluster&gt;"`).slice(1, -1));
  });

  it('a PagerDuty body with a bad signature (or none) is 401 and queues nothing', async () => {
    expect((await pagerduty(PAGERDUTY_EXAMPLES.triggered, 'not-the-pd-secret-0123456789')).status).toBe(401);
    const unsigned = await fetch(`${alerts.url}/http/alerts/pagerduty`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(PAGERDUTY_EXAMPLES.triggered) });
    expect(unsigned.status).toBe(401);
    expect(await drainQueue(moto, queueUrl)).toHaveLength(0);
  });
});
