// Alert intake at incident size, in the packaged alerts Lambda, per webhook source.
//   npx tsx bench/alert-intake.ts [--alerts 20000] [--grafana-alerts 10000] [--runs 10]
// Bundles handlers/alerts.ts as serverless.yml does, runs it in its own Node
// process behind the API Gateway HTTP API stand-in (test/deploy/lambda-package.ts)
// with moto's server (pip install 'moto[server]') as SQS, DynamoDB and SSM, and
// posts per run one Alertmanager notification of N alerts (20,000: 3.6 MB) and
// one Grafana notification (10,000 alerts: 5.5 MB, near Lambda's 6 MB) and one
// signed PagerDuty V3 incident webhook to a fresh function each.
// Prints the time to the 202 as the sender sees it (cold: the first request of
// a fresh process, module load and SSM read included; warm: the others), the
// handler's own intake time (parse, digest, enqueue; from its log line), the
// message size, and the process's peak resident memory against the function's
// memorySize (512 MB). Loopback only; runs are bounded by --runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageLambda, startLambdaHost } from '../test/deploy/lambda-package.ts';
import { createIntakeResources, drainQueue, hasMoto, startMoto } from '../test/deploy/moto.ts';
import { bigNotification } from '../test/alerts/fixtures/big.ts';
import { bigGrafanaNotification } from '../test/alerts/fixtures/grafana.ts';
import { createHmac } from 'node:crypto';
import { PAGERDUTY_EXAMPLES } from '../lib/pagerduty/examples.ts';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : def;
};
const ALERTS = flag('--alerts', 20_000);
const GRAFANA_ALERTS = flag('--grafana-alerts', 10_000);
const RUNS = Math.min(50, flag('--runs', 10));
const BASE = Number(process.env.KR_SANDBOX_PORT_BASE ?? 29090) + 95;
const TOKEN = 'am-token-bench-0123456789abcdef';
const GRAFANA_TOKEN = 'grafana-token-bench-0123456789ab';
const PAGERDUTY_SECRET = 'pagerduty-secret-bench-0123456789';
const pagerDutySigned = (body: string) => ({ 'x-pagerduty-signature': `v1=${createHmac('sha256', PAGERDUTY_SECRET).update(body).digest('hex')}` });

/** Per source: its route, its credentials and the notification posted. */
const SOURCES = [
  { name: 'alertmanager', path: '/alerts/alertmanager', headers: () => ({ authorization: `Bearer ${TOKEN}` }), alerts: ALERTS, body: () => JSON.stringify(bigNotification(ALERTS, { group: 'bench', resolved: 100 })) },
  { name: 'grafana', path: '/alerts/grafana', headers: () => ({ authorization: `Bearer ${GRAFANA_TOKEN}` }), alerts: GRAFANA_ALERTS, body: () => JSON.stringify(bigGrafanaNotification(GRAFANA_ALERTS, { group: 'bench', resolved: 100 })) },
  // One incident per webhook (PagerDuty's V3 shape), signed over the raw body.
  { name: 'pagerduty', path: '/alerts/pagerduty', headers: pagerDutySigned, alerts: 1, body: () => JSON.stringify(PAGERDUTY_EXAMPLES.triggered) },
];

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

type Host = Awaited<ReturnType<typeof startLambdaHost>>;
type Moto = Awaited<ReturnType<typeof startMoto>>;

async function measure(source: (typeof SOURCES)[number], host: Host, moto: Moto, queueUrl: string): Promise<void> {
  const body = source.body();
  const client: number[] = [];
  let rssAfterCold = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const res = await fetch(`${host.url}/http${source.path}`, { method: 'POST', headers: { ...source.headers(body), 'content-type': 'application/json' }, body });
    await res.text();
    client.push(performance.now() - t0);
    if (res.status !== 202) throw new Error(`${source.name} run ${i}: ${res.status}`);
    if (i === 0) rssAfterCold = await host.maxRssBytes();
  }
  const messages = await drainQueue(moto, queueUrl);
  const handler = host.logs
    .join('')
    .split('\n')
    .filter((l) => l.includes('alert accepted'))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as { intakeMs: number; jobBytes: number });
  const rss = await host.maxRssBytes();
  const warm = client.slice(1);
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
  console.log(`${source.name}: notification of ${source.alerts.toLocaleString('en-US')} alerts, ${(body.length / 1e6).toFixed(2)} MB`);
  console.log(`  sender → 202, cold (first request, module load and SSM read): ${client[0]!.toFixed(0)} ms`);
  if (warm.length) console.log(`  sender → 202, warm: p50 ${pct(warm, 50).toFixed(0)} ms, max ${Math.max(...warm).toFixed(0)} ms`);
  console.log(`  handler intake (parse, digest, enqueue): cold ${handler[0]?.intakeMs} ms, warm p50 ${pct(handler.slice(1).map((h) => h.intakeMs), 50)} ms`);
  console.log(`  queue message ${Math.max(...handler.map((h) => h.jobBytes))} bytes (SQS limit 262,144); ${messages.length} messages on the queue`);
  console.log(`  peak RSS after the first request ${mb(rssAfterCold)}, after ${RUNS} ${mb(rss)} (function memorySize 512 MB)`);
}

async function main(): Promise<void> {
  if (!hasMoto()) throw new Error("moto_server not found: pip install 'moto[server]'");
  const dir = mkdtempSync(join(tmpdir(), 'kr-bench-intake-'));
  const moto = await startMoto(BASE);
  try {
    const bundle = await packageLambda('alerts', dir);
    const { env, queueUrl } = await createIntakeResources(moto, 'bench', {
      '/kafka-responder/bench/alertmanager-token': { value: TOKEN, secure: true },
      '/kafka-responder/bench/grafana-token': { value: GRAFANA_TOKEN, secure: true },
      '/kafka-responder/bench/pagerduty-webhook-secrets': { value: PAGERDUTY_SECRET, secure: true },
    });
    console.log(`alerts Lambda bundle ${(bundle.bytes / 1e6).toFixed(2)} MB; ${RUNS} runs per source`);
    for (const [i, source] of SOURCES.entries()) {
      const hostEnv = { ...moto.awsEnv, ...env, KR_ALERTMANAGER_TOKEN_PARAMETER: '/kafka-responder/bench/alertmanager-token', KR_GRAFANA_TOKEN_PARAMETER: '/kafka-responder/bench/grafana-token', KR_PAGERDUTY_WEBHOOK_SECRETS_PARAMETER: '/kafka-responder/bench/pagerduty-webhook-secrets', LOG_LEVEL: 'INFO' };
      const host = await startLambdaHost(bundle.path, 'http', BASE + 1 + i, hostEnv, 10);
      try {
        await measure(source, host, moto, queueUrl);
      } finally {
        await host.stop();
      }
    }
  } finally {
    await moto.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
