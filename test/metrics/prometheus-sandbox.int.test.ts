// Metrics as evidence on a real cluster: the sandbox's brokers run the
// Prometheus JMX exporter (KR_SANDBOX_METRICS=1), a real Prometheus (Debian's
// package) scrapes what `sandbox env` names in KAFKA_METRICS_TARGETS, a broker
// is stopped under load, and `/kafka diagnose` goes through the Slack handler
// and the worker with the real diagnosis. The thread must carry the graph (a
// PNG, decoded here: size, colours per broker, UnderReplicatedPartitions rising
// at the stop) and findings that cite the metrics.
//
// Lean on purpose: the brokers are restarted with the exporter only when they
// run without it (all at once), Prometheus scrapes every second, and every wait
// is a bounded poll.
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Producer } from 'kafkajs';
import { createDefaultDiagnoser, type Diagnoser } from '../../lib/diagnose/diagnoser.ts';
import { executorFactory } from '../../lib/hosts/executors.ts';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import { BROKER_COLOURS, MARK_COLOUR, plotArea } from '../../lib/diagnose/metrics/chart/chart.ts';
import { createAlertmanagerHandler } from '../../lib/alerts/intake.ts';
import { alertmanagerPayload } from '../alerts/fixtures/samples.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import { Sandbox } from '../../sandbox/cluster.ts';
import { createTopic, kafkaClient, waitFor, withAdmin } from '../../sandbox/client.ts';
import { BROKER_IDS, controllerIds, metricsPort, sandboxSettings } from '../../sandbox/layout.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { scratchDir } from '../helpers/scratch.ts';
import { countColour, decodePng, nonWhite } from '../helpers/png.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { slashEvent } from '../slack/helpers/signed.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';

const prometheusBin = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).stdout.trim();
const alertmanagerBin = spawnSync('sh', ['-c', 'command -v prometheus-alertmanager'], { encoding: 'utf8' }).stdout.trim();
const up = hasSandbox() && prometheusBin !== '';
const TOPIC = 'metrics-under-load';
const STOPPED = 2;

function sandboxCli(args: string[], env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync(process.execPath, ['bin/kafka-responder.js', 'sandbox', ...args], { cwd: process.cwd(), env, encoding: 'utf8', timeout: 300_000 });
}

const exporterAnswers = (port: number) => fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);

describe.skipIf(!up)('metrics from a real Prometheus in the diagnosis thread (a broker stopped under load)', () => {
  const settings = sandboxSettings();
  const promPort = settings.portBase + 50;
  const promUrl = `http://127.0.0.1:${promPort}`;
  let prometheus: ChildProcess | undefined;
  let alertmanager: ChildProcess | undefined;
  let promDir = '';
  let scrapeConfig = '';
  let stub: SlackStub;
  let db: DynaliteHandle;
  let h: Harness;
  let producer: Producer | undefined;
  let producing = false;
  let loadLoop: Promise<void> = Promise.resolve();
  let stoppedAt = 0;
  let configFile = '';
  const reports: DiagnosisReport[] = [];

  async function promQuery(query: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(query)}`, { signal: AbortSignal.timeout(3000) });
    const body = (await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
    return body.data.result;
  }

  beforeAll(async () => {
    // The exporters: brokers that run without them are restarted with KR_SANDBOX_METRICS=1, all at once.
    const sandbox = new Sandbox(sandboxSettings({ ...process.env, KR_SANDBOX_METRICS: '1' }), () => {});
    const without = [];
    for (const id of BROKER_IDS) if (!(await exporterAnswers(metricsPort(settings, id)))) without.push(id);
    if (without.length) {
      await Promise.all(without.map((id) => sandbox.stop(id)));
      await sandbox.up();
    }
    const env = sandboxCli(['env'], { ...process.env, KR_SANDBOX_METRICS: '1' });
    const targets = /^export KAFKA_METRICS_TARGETS=(.+)$/m.exec(env)?.[1]?.split(',') ?? [];
    expect(targets.length, env).toBeGreaterThanOrEqual(3);

    // Prometheus, scraping every target every 2 s; each target labelled with its node id.
    const dir = scratchDir('prometheus');
    const idOf = (target: string) => [...controllerIds(settings), ...BROKER_IDS].find((id) => target.endsWith(`:${metricsPort(settings, id)}`));
    // Every KRaft controller's exporter is a target (three on 4.x), beside the brokers'.
    if (settings.mode === 'kraft') expect(targets.map(idOf).sort((a, b) => a! - b!)).toEqual([...BROKER_IDS, ...controllerIds(settings)]);
    const staticConfigs = targets.map((t) => `      - targets: ['${t}']\n        labels: { broker: '${idOf(t)}', cluster: 'sandbox-metrics' }`).join('\n');
    promDir = dir;
    scrapeConfig = `scrape_configs:\n  - job_name: kafka\n    static_configs:\n${staticConfigs}\n`;
    writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\n${scrapeConfig}`);
    prometheus = spawn(prometheusBin, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn',
      // An alert evaluated before Alertmanager is discovered counts as sent: resent after this, not the default minute.
      '--rules.alert.resend-delay=2s'], { stdio: 'ignore' });
    await waitFor('Prometheus ready', () => fetch(`${promUrl}/-/ready`).then((r) => r.ok, () => false), 60_000);

    await withAdmin(sandbox.bootstrapServers, async (admin) => {
      await admin.deleteTopics({ topics: [TOPIC] }).catch(() => {});
      await waitFor(`${TOPIC} gone`, async () => !(await admin.listTopics()).includes(TOPIC), 30_000);
      await createTopic(admin, TOPIC, { assignment: [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 3, 2], [2, 1, 3], [3, 2, 1]] });
    });
    // Load: small batches, acks=1 so producing goes on while a broker is down; bounded in count and time.
    producer = kafkaClient(sandbox.bootstrapServers, 'metrics-int-load').producer({ allowAutoTopicCreation: false, retry: { retries: 2 } });
    await producer.connect();
    producing = true;
    loadLoop = (async () => {
      const until = Date.now() + 240_000;
      for (let i = 0; producing && i < 5000 && Date.now() < until; i++) {
        await producer!.send({ topic: TOPIC, acks: 1, messages: Array.from({ length: 50 }, (_, k) => ({ value: `m${i}-${k}` })) }).catch(() => {});
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    // Some scrapes of the healthy cluster first.
    await waitFor('every broker scraped with UnderReplicatedPartitions 0', async () => {
      const r = await promQuery('kafka_server_replicamanager_underreplicatedpartitions{cluster="sandbox-metrics"}');
      return r.length >= 3 && r.every((s) => s.value[1] === '0');
    }, 120_000);
    await new Promise((r) => setTimeout(r, 5000));

    stub = await new SlackStub().start();
    db = await startDynalite();
    const { config } = sandboxConfig({ ...process.env, KR_SLACK_USERS: 'U0ALICE', KR_INCIDENT_CHANNEL: 'C0INCIDENT' });
    const cluster = config.clusters[0]!;
    const withMetrics = {
      ...config,
      clusters: [{ ...cluster, metrics: { prometheus: { url: promUrl, labels: { cluster: 'sandbox-metrics' }, brokerLabel: 'broker' }, windowMinutes: 5 } }],
    };
    configFile = join(scratchDir('metrics-config'), 'config.json');
    writeFileSync(configFile, JSON.stringify(withMetrics));
    const real = createDefaultDiagnoser(executorFactory());
    const recording: Diagnoser = { ...real, diagnose: async (req) => { const r = await real.diagnose(req); reports.push(r); return r; } };
    h = buildHarness({ stub, store: db.store, diagnoser: recording, config: withMetrics });

    // The incident: broker 2 stops (controlled shutdown) while producers write.
    stoppedAt = Date.now();
    await sandbox.stop(STOPPED);
    await waitFor('UnderReplicatedPartitions above 0 in Prometheus', async () => {
      const r = await promQuery('max(kafka_server_replicamanager_underreplicatedpartitions{cluster="sandbox-metrics"})');
      return Number(r[0]?.value[1] ?? 0) > 0;
    }, 60_000);
    await new Promise((r) => setTimeout(r, 3000));
  }, 600_000);

  afterAll(async () => {
    producing = false;
    await loadLoop;
    await producer?.disconnect().catch(() => {});
    prometheus?.kill('SIGTERM');
    alertmanager?.kill('SIGTERM');
    await stub?.stop();
    await db?.close();
    if (up) {
      await withAdmin(new Sandbox(sandboxSettings(), () => {}).bootstrapServers, (a) => a.deleteTopics({ topics: [TOPIC] })).catch(() => {});
      // Leave the shared cluster as the next test file expects it.
      sandboxCli(['scenario', 'healthy']);
    }
  }, 300_000);

  it('posts findings that cite the metrics and a graph in which UnderReplicatedPartitions rises at the stop', async () => {
    const res = await h.handler(slashEvent({ text: 'diagnose sandbox', responseUrl: stub.responseUrl() }));
    expect(res.statusCode).toBe(200);
    await h.queue.idle();
    const [parent] = stub.topLevel('C0OPS');
    expect(parent, 'progress message posted').toBeDefined();
    const thread = stub.thread(parent!.ts);
    const text = JSON.stringify(thread.map((m) => m.blocks));
    // The findings cite the metrics read around the diagnosis.
    expect(text).toMatch(/metrics \(prometheus\): `UnderReplicatedPartitions on broker [13] rose from 0 to \d+ at \d\d:\d\d:\d\d UTC/);
    expect(text).toMatch(/broker 2's metrics stop at|ISR shrinks on broker 2 began/);

    // The graph: uploaded through files.uploadV2 into the same thread.
    const png = stub.uploads.find((u) => u.filename?.endsWith('.png'));
    expect(png, `uploads: ${stub.uploads.map((u) => u.filename).join(', ')}`).toBeDefined();
    expect(png!.thread_ts).toBe(parent!.ts);
    expect(stub.callsTo('files.getUploadURLExternal').length).toBeGreaterThan(0);
    expect(stub.callsTo('files.completeUploadExternal').length).toBeGreaterThan(0);
    writeFileSync(join(scratchDir('metrics-graph'), 'graph.png'), png!.bytes);
    if (process.env.KR_KEEP_GRAPH) writeFileSync(process.env.KR_KEEP_GRAPH, png!.bytes);
    const image = decodePng(png!.bytes);
    expect(image.width).toBe(1200);
    expect(image.height).toBeGreaterThan(400);
    expect(nonWhite(image)).toBeGreaterThan(20_000);
    // One line colour per broker: all three brokers drawn.
    const drawn = BROKER_COLOURS.filter((c) => countColour(image, c) > 50);
    expect(drawn.length).toBeGreaterThanOrEqual(3);

    // UnderReplicatedPartitions: the first panel; flat on zero before the stop, above it after.
    const report = reports.at(-1)!;
    expect(report.metrics?.chart[0]).toBe('underReplicated');
    const area = plotArea(report.metrics!.window, 0);
    const colours = BROKER_COLOURS.slice(0, 4);
    const above = (x0: number, x1: number) =>
      colours.reduce((n, c) => n + countColour(image, c, { x0: Math.max(area.x0 + 4, Math.round(x0)), x1: Math.min(area.x1, Math.round(x1)), y0: area.top, y1: area.bottom - 4 }), 0);
    // (The segment from the last point before the stop to the first after it slopes up across one step.)
    const step = report.metrics!.window.stepMs;
    expect(above(area.x0, area.xOf(stoppedAt - 1.5 * step) - 4), 'no under-replicated partition before the stop').toBe(0);
    expect(above(area.xOf(stoppedAt), area.x1), 'under-replicated partitions after the stop').toBeGreaterThan(20);
    const urp = report.metrics!.series.filter((s) => s.metric === 'underReplicated' && s.broker !== STOPPED);
    const rose = urp.flatMap((s) => s.points).filter(([, v]) => v > 0).map(([t]) => t);
    expect(Math.min(...rose)).toBeGreaterThanOrEqual(stoppedAt - 2000);
    expect(Math.min(...rose)).toBeLessThan(stoppedAt + 30_000);
  });

  it('the alert path: an Alertmanager webhook gets the same graph in its thread, the firing time marked', async () => {
    const token = 'am-token-0123456789abcdef';
    const am = createAlertmanagerHandler({ queue: h.queue, store: db.store, log: h.log, bearerToken: token });
    const firedAt = new Date(stoppedAt + 2000).toISOString();
    const base = alertmanagerPayload('firing');
    const payload = { ...base, groupKey: `${base.groupKey}#metrics`, alerts: base.alerts.map((a) => ({ ...a, startsAt: firedAt })) };
    const res = await am({ rawPath: '/alerts/alertmanager', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(payload), requestContext: { http: { method: 'POST' } } });
    expect(res.statusCode).toBe(202);
    await h.queue.idle();
    const parent = stub.topLevel().find((m) => m.text.startsWith('FIRING: KafkaUnderReplicatedPartitions'));
    expect(parent, 'alert thread opened').toBeDefined();
    const text = JSON.stringify(stub.thread(parent!.ts).map((m) => m.blocks));
    expect(text).toMatch(/UnderReplicatedPartitions on broker [13] rose from 0 to \d+/);
    const png = stub.uploads.find((u) => u.thread_ts === parent!.ts && u.filename?.endsWith('.png'));
    expect(png, 'graph in the alert thread').toBeDefined();
    const image = decodePng(png!.bytes);
    if (process.env.KR_KEEP_GRAPH) writeFileSync(process.env.KR_KEEP_GRAPH.replace(/\.png$/, '-alert.png'), png!.bytes);
    expect(countColour(image, MARK_COLOUR)).toBeGreaterThan(50);

    // The incident's timeline carries the graph over the incident's span, the firing marked.
    const t0 = Date.now();
    const res2 = await h.handler(slashEvent({ text: `timeline ${parent!.channel}/${parent!.ts}`, responseUrl: stub.responseUrl() }));
    expect(res2.statusCode).toBe(200);
    await h.queue.idle();
    const files = stub.uploads.filter((u) => u.thread_ts === parent!.ts && (u.filename?.startsWith('timeline-') || u.title?.endsWith('over the incident')));
    expect(files.map((f) => f.filename?.split('.').pop())).toEqual(['md', 'png']);
    expect(files[0]!.content).toContain('## Graphs');
    const graph = decodePng(files[1]!.bytes);
    if (process.env.KR_KEEP_GRAPH) writeFileSync(process.env.KR_KEEP_GRAPH.replace(/\.png$/, '-timeline.png'), files[1]!.bytes);
    expect(graph.width).toBe(1200);
    expect(nonWhite(graph)).toBeGreaterThan(20_000);
    expect(BROKER_COLOURS.filter((c) => countColour(graph, c) > 50).length).toBeGreaterThanOrEqual(3);
    expect(countColour(graph, MARK_COLOUR)).toBeGreaterThan(50);
    console.log(`[metrics] timeline with its graph posted in ${Date.now() - t0} ms (${files[1]!.bytes.length} bytes)`);
  });

  it.skipIf(!alertmanagerBin)('the real path: Prometheus rule → Alertmanager 0.25 → webhook: the alert thread has the graph, URP first, the firing marked', async () => {
    const token = 'am-real-token-0123456789abcdef';
    const am = createAlertmanagerHandler({ queue: h.queue, store: db.store, log: h.log, bearerToken: token });
    const hookPort = settings.portBase + 52;
    const amPort = settings.portBase + 51;
    const deliveries: number[] = [];
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        void am({ rawPath: req.url ?? '/', headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' }, body, requestContext: { http: { method: req.method ?? 'POST' } } }).then((r) => {
          deliveries.push(r.statusCode);
          res.statusCode = r.statusCode;
          res.end(r.body ?? '');
        });
      });
    });
    await new Promise<void>((r) => hook.listen(hookPort, '127.0.0.1', () => r()));
    try {
      writeFileSync(join(promDir, 'alertmanager.yml'), ['route:', '  receiver: bot', "  group_by: ['alertname', 'cluster']", '  group_wait: 1s', '  group_interval: 5m', '  repeat_interval: 4h', 'receivers:', '  - name: bot', '    webhook_configs:', `      - url: http://127.0.0.1:${hookPort}/alerts/alertmanager`, '        http_config:', '          authorization:', '            type: Bearer', `            credentials: ${token}`, ''].join('\n'));
      alertmanager = spawn(alertmanagerBin, [`--config.file=${join(promDir, 'alertmanager.yml')}`, `--storage.path=${join(promDir, 'am')}`, `--web.listen-address=127.0.0.1:${amPort}`, '--cluster.listen-address=', '--log.level=warn'], { stdio: 'ignore' });
      await waitFor('Alertmanager ready', () => fetch(`http://127.0.0.1:${amPort}/-/ready`).then((r) => r.ok, () => false), 30_000);
      // The rule users write: any under-replicated partition, at once; Prometheus reloads its config on SIGHUP.
      writeFileSync(join(promDir, 'rules.yml'), ['groups:', '  - name: kafka', '    interval: 1s', '    rules:', '      - alert: KafkaUnderReplicatedPartitions', '        expr: max(kafka_server_replicamanager_underreplicatedpartitions{cluster="sandbox-metrics"}) > 0', '        labels: { severity: critical, cluster: sandbox }', "        annotations: { summary: 'Under-replicated partitions on sandbox' }", ''].join('\n'));
      writeFileSync(join(promDir, 'prometheus.yml'), `global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\n  evaluation_interval: 1s\nrule_files: ['${join(promDir, 'rules.yml')}']\nalerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['127.0.0.1:${amPort}']\n${scrapeConfig}`);
      const before = new Set(stub.topLevel().map((m) => m.ts));
      const t0 = Date.now();
      prometheus!.kill('SIGHUP');
      await waitFor('the webhook delivered by Alertmanager', async () => deliveries.length > 0, 90_000);
      expect(deliveries[0]).toBe(202);
      await h.queue.idle();
      const parent = stub.topLevel().find((m) => !before.has(m.ts) && m.text.startsWith('FIRING: KafkaUnderReplicatedPartitions'));
      expect(parent, stub.topLevel().map((m) => m.text).join('\n')).toBeDefined();
      expect(JSON.stringify(stub.thread(parent!.ts).map((m) => m.blocks))).toMatch(/UnderReplicatedPartitions on broker [13] rose from 0 to \d+/);
      const report = reports.at(-1)!;
      expect(report.metrics?.chart[0]).toBe('underReplicated');
      // (The diagnosis may be shared with the earlier ones; the thread's graph is marked with this alert's firing,
      // Prometheus's first evaluation after the reload, at the graph's right edge.)
      const image = decodePng(stub.uploads.find((u) => u.thread_ts === parent!.ts && u.filename?.endsWith('.png'))!.bytes);
      expect(countColour(image, MARK_COLOUR)).toBeGreaterThan(0);
      expect(BROKER_COLOURS.filter((c) => countColour(image, c) > 50).length).toBeGreaterThanOrEqual(3);
      console.log(`[metrics] Alertmanager: rule loaded → webhook ${deliveries.length} delivery, thread with graph in ${Date.now() - t0} ms`);
    } finally {
      hook.close();
    }
  });

  it('the CLI: diagnose --config with the metrics source reads and cites the same metrics (installed bin)', async () => {
    const t0 = Date.now();
    const run = await promisify(execFile)(process.execPath, ['bin/kafka-responder.js', 'diagnose', '--config', configFile, '--format', 'json'], { cwd: process.cwd(), env: process.env, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }).catch(
      // Exit 3: findings at warning or worse (a broker is down).
      (err: { code?: number; stdout?: string; stderr?: string }) => (err.code === 3 ? { stdout: err.stdout ?? '', stderr: err.stderr ?? '' } : Promise.reject(new Error(`diagnose failed: ${err.stderr}`))),
    );
    const report = JSON.parse(run.stdout) as DiagnosisReport;
    expect(report.metrics?.source).toBe('prometheus');
    expect(report.metrics?.chart[0]).toBe('underReplicated');
    expect(JSON.stringify(report.findings)).toMatch(/UnderReplicatedPartitions on broker [13] rose from 0 to \d+/);
    console.log(`[metrics] CLI diagnose with metrics: ${Date.now() - t0} ms`);
  });
});
