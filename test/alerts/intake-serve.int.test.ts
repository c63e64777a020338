// Alert groups at incident size through `serve` as users run it (the installed
// bin, the README's defaults, ALERTMANAGER_TOKEN because the test is about
// alerts), then through the real Alertmanager (Debian's prometheus-alertmanager,
// .ci/run installs it) with max_alerts unset. One serve, one Slack stub and one
// Alertmanager for every case. Each notification must be accepted (2xx), make
// exactly one thread whose messages say how many alerts the group held and how
// many are shown, and no job may exceed SQS's limit (serve's in-process queue
// enforces it too; each accepted alert logs its job's size).
// The alerts name a cluster serve does not know, so no diagnosis runs: the
// subject here is intake and the thread, not the cluster.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JOB_BYTES } from '../../lib/queue/oversize.ts';
import { ServeHarness, waitFor } from '../operations/serve-harness.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { BIG_CLUSTER, bigNotification, hugeAnnotationNotification, richNotification } from './fixtures/big.ts';
import { bigGrafanaNotification, grafanaExample, hugeAnnotationGrafana } from './fixtures/grafana.ts';

const TOKEN = 'am-token-intake-serve-0123456789';
// Ports from this run's range (KR_SANDBOX_PORT_BASE + 80..89), clear of the sandbox's own.
const BASE = Number(process.env.KR_SANDBOX_PORT_BASE ?? 29090) + 80;
const SERVE_PORT = BASE;
const STUB_PORT = BASE + 1;
const AM_PORT = BASE + 2;
const ALERTMANAGER = 'prometheus-alertmanager';
const hasAlertmanager = spawnSync(ALERTMANAGER, ['--version'], { encoding: 'utf8' }).status === 0;

const stub = new SlackStub();
const serve = new ServeHarness(stub, { ALERTMANAGER_TOKEN: TOKEN });
const timings: string[] = [];
const url = `http://127.0.0.1:${SERVE_PORT}`;

beforeAll(async () => {
  await stub.start(STUB_PORT);
  serve.port = SERVE_PORT;
  await serve.start();
}, 120_000);

afterAll(async () => {
  serve.stop();
  await stub.stop();
  console.log(`[intake-serve] ${timings.join('; ')}`);
});

async function post(body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/alerts/alertmanager`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const all = (m: StubMessage) => `${m.text}\n${JSON.stringify(m.blocks)}`;

/** The one thread whose parent message contains `marker`, once its replies are there. */
async function threadOf(marker: string): Promise<{ parent: StubMessage; replies: StubMessage[] }> {
  return waitFor(
    `the thread with "${marker}"`,
    () => {
      const parents = stub.topLevel().filter((m) => all(m).includes(marker));
      if (parents.length > 1) throw new Error(`${parents.length} threads with "${marker}"`);
      const parent = parents[0];
      if (!parent) return undefined;
      const replies = stub.thread(parent.ts);
      return replies.some((r) => r.text.startsWith('This group holds')) || replies.some((r) => r.text === 'No diagnosis: unknown cluster') ? { parent, replies } : undefined;
    },
    90_000,
    250,
  );
}

/** What serve logged for each accepted notification: its job's size. */
function acceptedJobs(): { alerts: number; jobBytes: number; storedPayloadBytes?: number }[] {
  return serve.logs
    .join('')
    .split('\n')
    .filter((l) => l.includes('alert accepted'))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as { alerts: number; jobBytes: number; storedPayloadBytes?: number });
}

describe('intake at incident size through serve (installed bin, README defaults)', () => {
  it.each([
    ['10,000 alerts', 10_000],
    ['20,000 alerts', 20_000],
  ])('%s in one notification: 202, one thread that says how many the group held and how many are shown', async (label, alerts) => {
    const body = JSON.stringify(bigNotification(alerts, { group: `serve-${alerts}` }));
    const t0 = Date.now();
    const res = await post(body);
    timings.push(`${label} (${(body.length / 1e6).toFixed(1)} MB) accepted in ${Date.now() - t0} ms`);
    expect(res.status).toBe(202);
    expect(res.json.alerts).toBe(alerts);
    const total = alerts.toLocaleString('en-US');
    const { parent, replies } = await threadOf(`*Alerts in group:* ${total} alerts (`);
    expect(all(parent)).toContain(`${total} alerts (${total} firing, 0 resolved), 20 shown in the thread`);
    const digest = replies.find((r) => r.text.startsWith('This group holds'))!;
    expect(digest.text).toBe(`This group holds ${total} alerts (${total} firing, 0 resolved), 20 shown`);
    expect(all(digest)).toContain(`20 of ${total} alerts shown`);
    expect(all(digest)).toMatch(new RegExp(`\\*severity:\\* \`warning\` ${(alerts * 0.9).toLocaleString('en-US')} · \`critical\` ${(alerts * 0.1).toLocaleString('en-US')}`));
  });

  it('one alert with a 900 KB annotation: 202, one thread, the annotation shortened', async () => {
    const res = await post(JSON.stringify(hugeAnnotationNotification(900 * 1024, 'serve-huge')));
    expect(res.status).toBe(202);
    const { parent, replies } = await threadOf('KafkaBrokerDown');
    expect(parent.text).toMatch(/^FIRING: KafkaBrokerDown on prod-kafka/);
    expect(all(parent).length).toBeLessThan(20_000);
    expect(replies.every((r) => all(r).length < 20_000)).toBe(true);
  });

  it('rich annotations: the payload is stored in the state table and the worker reads it back; one thread', async () => {
    const res = await post(JSON.stringify(richNotification(60, 8, 'serve-rich')));
    expect(res.status).toBe(202);
    const { replies } = await threadOf('*Alerts in group:* 60 alerts (');
    expect(replies.find((r) => r.text.startsWith('This group holds'))!.text).toBe('This group holds 60 alerts (60 firing, 0 resolved), 20 shown');
    expect(acceptedJobs().some((j) => j.alerts === 60 && j.storedPayloadBytes! > MAX_JOB_BYTES)).toBe(true);
  });

  it('one thread per group, and no job was larger than a queue message', () => {
    expect(stub.topLevel()).toHaveLength(4);
    const jobs = acceptedJobs();
    expect(jobs.length).toBeGreaterThanOrEqual(4);
    for (const j of jobs) expect(j.jobBytes).toBeLessThanOrEqual(MAX_JOB_BYTES);
    timings.push(`largest job ${Math.max(...jobs.map((j) => j.jobBytes))} bytes`);
  });
});

// Grafana's route with the README's defaults: no GRAFANA_TOKEN, so it takes ALERTMANAGER_TOKEN (serve's note says so).
describe("Grafana Alerting's webhook through serve", () => {
  const grafana = (body: unknown, authorization = `Bearer ${TOKEN}`) =>
    fetch(`${url}/alerts/grafana`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it("Grafana's documented example: 202 (Basic auth, the token as password), one thread with its links and values", async () => {
    const res = await grafana(grafanaExample({ cluster: BIG_CLUSTER, groupKey: '{}:{serve-example}' }), `Basic ${Buffer.from(`grafana:${TOKEN}`).toString('base64')}`);
    expect(res.status).toBe(202);
    const { parent, replies } = await threadOf('High memory usage');
    expect(all(parent)).toContain('*Source:* Grafana');
    expect(all(parent)).toContain('|Dashboard>');
    expect(all(parent)).toContain('<https://play.grafana.org/alerting/silence/new?alertmanager=grafana&amp;matchers=alertname%3DT2%2Cteam%3Dblue%2Czone%3Dus-1|Silence>');
    expect(all(parent)).toContain('Values: B=44.2394, C=1');
    expect(replies.map((r) => r.text)).toContain('This group holds 2 alerts (2 firing, 0 resolved), 2 shown');
    expect(serve.logs.join('')).toContain('GRAFANA_TOKEN not set: POST /alerts/grafana takes the ALERTMANAGER_TOKEN');
  });

  it('10,000 alerts in Grafana\'s shape: 202, one thread with the count and the links', async () => {
    const body = bigGrafanaNotification(10_000, { group: 'serve-grafana' });
    const t0 = Date.now();
    const res = await grafana(body);
    timings.push(`Grafana 10,000 alerts (${(JSON.stringify(body).length / 1e6).toFixed(1)} MB) accepted in ${Date.now() - t0} ms`);
    expect(res.status).toBe(202);
    const { parent, replies } = await threadOf('*Source:* Grafana · `KafkaUnderReplicatedPartitions`');
    expect(all(parent)).toContain('10,000 alerts (10,000 firing, 0 resolved), 20 shown in the thread');
    expect(all(parent)).toContain('<https://grafana/d/kafka|Dashboard>');
    expect(replies.map((r) => r.text)).toContain('This group holds 10,000 alerts (10,000 firing, 0 resolved), 20 shown');
  });

  it('one alert with a 900 KB annotation in Grafana\'s shape: 202, one thread', async () => {
    expect((await grafana(hugeAnnotationGrafana(900 * 1024, 'serve-grafana-huge'))).status).toBe(202);
    const { parent } = await threadOf('*Source:* Grafana · `KafkaBrokerDown`');
    expect(all(parent).length).toBeLessThan(20_000);
  });

  it('a wrong token is 401, and nothing is posted', async () => {
    const before = stub.topLevel().length;
    expect((await grafana(grafanaExample({ groupKey: 'wrong' }), 'Bearer not-the-token-0123456789')).status).toBe(401);
    expect((await grafana(grafanaExample({ groupKey: 'wrong' }), `Basic ${Buffer.from('grafana:nope-0123456789abcdef').toString('base64')}`)).status).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    expect(stub.topLevel()).toHaveLength(before);
  });
});

describe.skipIf(!hasAlertmanager)('the real Alertmanager, max_alerts unset, into serve', () => {
  let am: ChildProcess | undefined;
  let dir = '';
  const amLogs: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kr-am-'));
    writeFileSync(
      join(dir, 'alertmanager.yml'),
      [
        'route:',
        '  receiver: kafka-responder',
        "  group_by: ['alertname', 'cluster']",
        '  group_wait: 2s',
        '  group_interval: 5m',
        '  repeat_interval: 4h',
        'receivers:',
        '  - name: kafka-responder',
        '    webhook_configs:',
        `      - url: ${url}/alerts/alertmanager`,
        '        send_resolved: true',
        '        http_config:',
        '          authorization:',
        '            type: Bearer',
        `            credentials: ${TOKEN}`,
        '',
      ].join('\n'),
    );
    am = spawn(ALERTMANAGER, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${AM_PORT}`, '--cluster.listen-address=', '--log.level=warn'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    am.stdout!.on('data', (d: Buffer) => amLogs.push(d.toString()));
    am.stderr!.on('data', (d: Buffer) => amLogs.push(d.toString()));
    await waitFor('Alertmanager to answer', async () => (await fetch(`http://127.0.0.1:${AM_PORT}/-/ready`).catch(() => null))?.ok, 30_000, 200);
  }, 60_000);

  afterAll(async () => {
    // Alertmanager writes its silences and notification log as it shuts down: remove its data once it has exited.
    if (am && am.exitCode === null && am.signalCode === null) {
      const exited = once(am, 'exit');
      am.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }, 30_000);

  it('5,000 alerts in one group: delivered, accepted, one thread with the right counts, nothing refused', async () => {
    const startsAt = new Date().toISOString();
    const alerts = Array.from({ length: 5_000 }, (_, i) => ({
      labels: { alertname: 'KafkaConsumerGroupLag', cluster: BIG_CLUSTER, group: `consumers-${i}`, topic: `t-${i % 50}`, severity: i % 5 === 0 ? 'critical' : 'warning' },
      annotations: { summary: `consumer group consumers-${i} is lagging` },
      startsAt,
      generatorURL: 'http://prometheus:9090/graph',
    }));
    const t0 = Date.now();
    const res = await fetch(`http://127.0.0.1:${AM_PORT}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) });
    expect(res.status).toBe(200);
    const { parent, replies } = await threadOf('KafkaConsumerGroupLag');
    timings.push(`Alertmanager: 5,000 alerts posted → thread in ${Date.now() - t0} ms`);
    expect(all(parent)).toContain('5,000 alerts (5,000 firing, 0 resolved), 20 shown in the thread');
    const digest = replies.find((r) => r.text.startsWith('This group holds'))!;
    expect(digest.text).toBe('This group holds 5,000 alerts (5,000 firing, 0 resolved), 20 shown');
    expect(all(digest)).toMatch(/\*severity:\* `warning` 4,000 · `critical` 1,000/);
    // Alertmanager's own account: notifications sent, none failed (it retries only on 5xx; a 4xx would count as failed).
    const metrics = await (await fetch(`http://127.0.0.1:${AM_PORT}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name}\\{[^}]*integration="webhook"[^}]*\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? NaN);
    expect(metric('alertmanager_notifications_total')).toBeGreaterThanOrEqual(1);
    expect(metric('alertmanager_notifications_failed_total'), amLogs.join('')).toBe(0);
    const accepted = acceptedJobs().filter((j) => j.alerts === 5_000);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.jobBytes).toBeLessThanOrEqual(MAX_JOB_BYTES);
    expect(stub.topLevel().filter((m) => all(m).includes('KafkaConsumerGroupLag'))).toHaveLength(1);
  }, 120_000);
});
