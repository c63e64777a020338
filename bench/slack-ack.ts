// Slack ack latency and Lambda bundle sizes.
//   npx tsx bench/slack-ack.ts [--warm 200] [--cold 5] [--burst 200]
//   npx tsx bench/slack-ack.ts --serve [200] [--wait-jobs 120]
// --serve: only the burst against the installed `serve` (bench/slack-ack-serve.ts;
// run `npm run build` first); the default run ends with that burst too.
// Builds each Lambda handler exactly as serverless.yml does (esbuild, ESM,
// minified, same plugins), then starts fresh node processes that import the
// Slack bundle and answer one signed slash command: process start → ack is
// the cold figure (module load included). Then N more requests in one process
// give the warm figures. DynamoDB is dynalite and SQS a local fake, both on
// 127.0.0.1, so network time to AWS is not in these numbers. Targets: cold
// start to ack < 1 s, warm ack < 100 ms, each bundle < 3 MB.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { build } from 'esbuild';
import { startDynalite } from '../test/alerts/helpers/dynalite.ts';
import { serveBurst } from './slack-ack-serve.ts';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 && /^\d+$/.test(args[i + 1] ?? '') ? Number(args[i + 1]) : def;
};
const WARM = flag('--warm', 200);
const SERVE = args.includes('--serve');
const BURST = SERVE ? flag('--serve', flag('--burst', 200)) : flag('--burst', 200);
const WAIT_JOBS = flag('--wait-jobs', 0);
const COLD = flag('--cold', 5);
const SECRET = 'bench-signing-secret';

const plugins = createRequire(import.meta.url)(join(root, 'handlers/build/esbuild-plugins.cjs'));
const BANNER = "import { createRequire as __krCreateRequire } from 'node:module'; const require = __krCreateRequire(import.meta.url);";

async function bundle(entry: string, outfile: string): Promise<number> {
  const r = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    minify: true,
    keepNames: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    banner: { js: BANNER },
    plugins,
    outfile,
    metafile: true,
    logLevel: 'error',
  });
  return Object.values(r.metafile.outputs)[0]!.bytes;
}

/** Answers SendMessage like SQS (AWS JSON 1.0), with the MD5 the SDK checks. */
async function fakeSqs(): Promise<{ url: string; sent: () => number; close: () => Promise<void> }> {
  let sent = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { MessageBody?: string };
      sent++;
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ MessageId: `m-${sent}`, MD5OfMessageBody: createHash('md5').update(body.MessageBody ?? '').digest('hex') }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, sent: () => sent, close: () => new Promise((r) => server.close(() => r())) };
}

/** Answers GetParameter like SSM (AWS JSON 1.1) from a fixed map, counting the calls. */
async function fakeSsm(values: Record<string, string>): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls++;
      const { Name } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { Name?: string };
      const value = Name ? values[Name] : undefined;
      res.writeHead(value === undefined ? 400 : 200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(value === undefined ? { __type: 'ParameterNotFound', message: `no ${Name}` } : { Parameter: { Name, Type: 'SecureString', Value: value, Version: 1 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls: () => calls, close: () => new Promise((r) => server.close(() => r())) };
}

// Runs in the fresh process: import the bundle, answer one command (cold), then WARM more.
const CHILD = `
const { createHmac } = await import('node:crypto');
const secret = process.env.BENCH_SIGNING_SECRET;
let n = 0;
function event() {
  const ts = Math.floor(Date.now() / 1000);
  const body = new URLSearchParams({ team_id: 'T0B', channel_id: 'C0OPS', user_id: 'U0ALICE', command: '/kafka', text: 'diagnose sandbox orders-' + process.pid + '-' + (n++), response_url: 'http://127.0.0.1:9/r', trigger_id: 't' }).toString();
  const sig = 'v0=' + createHmac('sha256', secret).update('v0:' + ts + ':' + body).digest('hex');
  return { version: '2.0', rawPath: '/slack/events', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(ts), 'x-slack-signature': sig }, body: Buffer.from(body).toString('base64'), isBase64Encoded: true, requestContext: { http: { method: 'POST' } } };
}
const { handler } = await import(process.env.BUNDLE);
const loadedAt = performance.now();
const first = await handler(event());
const ackAt = performance.now();
if (first.statusCode !== 200) throw new Error('cold request answered ' + first.statusCode + ' ' + first.body);
const warm = [];
for (let i = 0; i < Number(process.env.WARM); i++) {
  const t = performance.now();
  const r = await handler(event());
  warm.push(performance.now() - t);
  if (r.statusCode !== 200) throw new Error('warm request answered ' + r.statusCode);
}
process.stdout.write(JSON.stringify({ loadMs: loadedAt, ackMs: ackAt, warm }) + '\\n');
`;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function main() {
  const out = mkdtempSync(join(tmpdir(), 'kr-bench-'));
  const db = await startDynalite();
  const sqs = await fakeSqs();
  try {
    console.log('bundle sizes (esbuild, as serverless.yml builds them):');
    const sizes: Record<string, number> = {};
    for (const [name, entry] of [
      ['slack', 'handlers/slack.ts'],
      ['alerts (alertmanager + cloudwatch)', 'handlers/alerts.ts'],
      ['worker', 'handlers/worker.ts'],
    ] as const) {
      const file = join(out, `${name.split(' ')[0]}.mjs`);
      const bytes = await bundle(entry, file);
      sizes[name] = bytes;
      const zipped = deflateRawSync(await import('node:fs').then((fs) => fs.readFileSync(file)), { level: 9 }).length;
      console.log(`  ${name.padEnd(36)} ${(bytes / 1024 / 1024).toFixed(2)} MB  (~${(zipped / 1024).toFixed(0)} KB zipped)  ${bytes < 3 * 1024 * 1024 ? 'OK' : 'OVER 3 MB'}`);
    }
    const runner = join(out, 'child.mjs');
    writeFileSync(runner, CHILD);
    const env = {
      ...process.env,
      BUNDLE: join(out, 'slack.mjs'),
      WARM: '0',
      BENCH_SIGNING_SECRET: SECRET,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_BOT_TOKEN: 'xoxb-bench',
      STATE_TABLE: db.tableName,
      JOB_QUEUE_URL: `${sqs.url}/000000000000/kafka-responder-bench-jobs.fifo`,
      AWS_ENDPOINT_URL_DYNAMODB: (await db.client.config.endpoint!()).protocol + '//' + (await db.client.config.endpoint!()).hostname + ':' + (await db.client.config.endpoint!()).port,
      AWS_ENDPOINT_URL_SQS: sqs.url,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
      // One user sends every command: the command limits (which would refuse all but the first few) are
      // raised, so the figures are those of accepted commands; the limits' own counts stay in the path.
      KR_CONFIG: JSON.stringify({
        clusters: [{ name: 'sandbox', bootstrap: ['127.0.0.1:19091'] }],
        slack: { allowedTeams: ['T0B'], allowedUsers: ['U0ALICE'], incidentChannel: 'C0INC' },
        commandLimits: { perUser: { requests: 10_000 }, perChannel: { requests: 10_000 }, perCluster: { requests: 10_000 } },
      }),
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      NODE_NO_WARNINGS: '1',
      LOG_LEVEL: 'ERROR',
    };
    const runChild = (warm: number, over: Record<string, string | undefined> = {}) =>
      new Promise<{ wallMs: number; loadMs: number; ackMs: number; warm: number[] }>((resolveRun, reject) => {
        const started = performance.now();
        const child = spawn(process.execPath, [runner], { env: { ...env, WARM: String(warm), ...over }, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('exit', (code) => {
          const wallMs = performance.now() - started;
          const line = stdout.trim().split('\n').pop() ?? '';
          if (code !== 0 || !line.startsWith('{')) return reject(new Error(`child failed (${code}): ${stderr.slice(-2000)}`));
          resolveRun({ wallMs, ...(JSON.parse(line) as { loadMs: number; ackMs: number; warm: number[] }) });
        });
      });

    console.log(`\ncold start to ack, Slack handler (${COLD} fresh processes; node start + bundle load + one signed slash command):`);
    const colds = [];
    for (let i = 0; i < COLD; i++) colds.push(await runChild(0));
    for (const c of colds) console.log(`  process start → module loaded ${c.loadMs.toFixed(0)} ms → ack ${c.ackMs.toFixed(0)} ms   (spawn → exit ${c.wallMs.toFixed(0)} ms)`);
    const coldAck = colds.map((c) => c.ackMs);
    console.log(`  median ${pct(coldAck, 50).toFixed(0)} ms, max ${Math.max(...coldAck).toFixed(0)} ms   target < 1000 ms: ${Math.max(...coldAck) < 1000 ? 'OK' : 'MISSED'}`);

    // As deployed: the signing secret, bot token and config are SecureString parameters read at
    // init with Powertools Parameters (lib/config/secrets.ts), here from a loopback SSM stand-in.
    const ssm = await fakeSsm({ '/kr/bench/signing': SECRET, '/kr/bench/bot': 'xoxb-bench', '/kr/bench/config': env.KR_CONFIG });
    try {
      const fromSsm = {
        SLACK_SIGNING_SECRET: undefined, SLACK_BOT_TOKEN: undefined, KR_CONFIG: undefined,
        KR_SLACK_SIGNING_SECRET_PARAMETER: '/kr/bench/signing', KR_SLACK_BOT_TOKEN_PARAMETER: '/kr/bench/bot', KR_CONFIG_PARAMETER: '/kr/bench/config',
        AWS_ENDPOINT_URL_SSM: ssm.url,
      };
      console.log(`\ncold start to ack, secrets and config from SSM parameters (Powertools, loopback SSM; ${COLD} fresh processes, 20 warm requests each):`);
      const ssmColds = [];
      for (let i = 0; i < COLD; i++) ssmColds.push(await runChild(20, fromSsm));
      for (const c of ssmColds) console.log(`  process start → module loaded ${c.loadMs.toFixed(0)} ms → ack ${c.ackMs.toFixed(0)} ms   (spawn → exit ${c.wallMs.toFixed(0)} ms)`);
      const ssmAck = ssmColds.map((c) => c.ackMs);
      console.log(`  median ${pct(ssmAck, 50).toFixed(0)} ms, max ${Math.max(...ssmAck).toFixed(0)} ms   target < 1000 ms: ${Math.max(...ssmAck) < 1000 ? 'OK' : 'MISSED'}`);
      console.log(`  GetParameter calls: ${ssm.calls()} for ${COLD} processes × 21 requests (3 per process: the rest from the Powertools cache)`);
    } finally {
      await ssm.close();
    }

    const w = (await runChild(WARM)).warm;
    console.log(`\nwarm ack, Slack handler (${WARM} signed slash commands in one process: verify, replay check, authz, record, enqueue):`);
    console.log(`  p50 ${pct(w, 50).toFixed(1)} ms, p95 ${pct(w, 95).toFixed(1)} ms, p99 ${pct(w, 99).toFixed(1)} ms, max ${Math.max(...w).toFixed(1)} ms   target < 100 ms (p95): ${pct(w, 95) < 100 ? 'OK' : 'MISSED'}`);
    console.log(`  (${sqs.sent()} jobs reached the fake SQS)`);
  } finally {
    await sqs.close();
    await db.close();
    rmSync(out, { recursive: true, force: true });
  }
}

if (!SERVE) await main();
console.log('');
await serveBurst(BURST, WAIT_JOBS);
