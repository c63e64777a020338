// The ack of a burst against the installed `serve` (bin/kafka-responder.js,
// i.e. dist/ as `npm run build` left it; nothing is built here): N signed
// `/kafka diagnose` slash commands sent at once, each on its own connection,
// each a distinct request (its own user, response_url and trigger id, so none
// is a replay). serve runs with the README's environment only (signing
// secret, bot token, KR_APPROVERS, SLACK_API_URL at a loopback Slack stub) and
// its default cluster, the sandbox: running or not, the ack must not wait on
// Kafka. Prints failures (anything but HTTP 200 with a body, or no answer),
// how many the command budget refused (a refusal is an ack too), and the
// client-measured latency request sent → response complete. Target: p99 < 1 s.
// With `--wait-jobs S` it then waits up to S seconds for every accepted
// command to be answered in Slack (nothing acked is lost).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { signSlackRequest } from '../lib/slack/verify.ts';
import { closedPort } from '../test/helpers/net.ts';
import { SIGNING_SECRET, slashBody } from '../test/slack/helpers/signed.ts';
import { SlackStub } from '../test/slack/helpers/slack-stub.ts';

const BIN = new URL('../bin/kafka-responder.js', import.meta.url).pathname;
/** What a user's shell has, and the sandbox serve's default cluster is (KR_SANDBOX_HOME / KR_SANDBOX_PORT_BASE). */
const MACHINE = /^(PATH|HOME|USER|SHELL|TMPDIR|TEMP|TMP|LANG|LC_[A-Z]+|TZ|JAVA_HOME|KR_SANDBOX_[A-Z_]+|KR_KAFKA_CACHE)$/;
const STARTUP_LINE = /^kafka-responder listening on (http:\/\/\S+) \(.*$/m;
/** Spread so that the per-user and per-channel windows (6 and 20 a minute by default) never bind: the cluster's does. */
const CHANNELS = 10;

interface Ack {
  ms: number;
  status: number;
  body: string;
  error?: string;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** One signed command on its own connection (as Slack's would arrive): sent → response complete. */
function sendCommand(url: string, body: string, timeoutMs: number): Promise<Ack> {
  const ts = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': String(Buffer.byteLength(body)),
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': signSlackRequest(SIGNING_SECRET, ts, body),
  };
  return new Promise((resolve) => {
    const started = performance.now();
    const done = (a: Omit<Ack, 'ms'>) => resolve({ ms: performance.now() - started, ...a });
    const req = request(`${url}/slack/commands`, { method: 'POST', headers, agent: false, timeout: timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
      res.on('error', (err) => done({ status: 0, body: '', error: err.message }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (err) => done({ status: 0, body: '', error: err.message }));
    req.end(body);
  });
}

/**
 * serve's CPU time so far (user + system, ms) from /proc (Linux; undefined elsewhere): on a shared
 * machine the latency follows the load, the CPU a burst costs does not.
 */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

async function startServe(stub: SlackStub): Promise<{ url: string; pid: number | undefined; logs: string[]; stop: () => Promise<void> }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && MACHINE.test(k)) env[k] = v;
  Object.assign(env, { SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_BOT_TOKEN: 'xoxb-bench', SLACK_API_URL: stub.apiUrl, KR_APPROVERS: 'U0APPROVER1,U0APPROVER2' });
  const port = await closedPort();
  // KR_BENCH_NODE_ARGS: node flags for serve when measuring where the time goes (e.g. --cpu-prof).
  const nodeArgs = (process.env.KR_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  child.stdout.on('data', (d: Buffer) => logs.push(d.toString()));
  child.stderr.on('data', (d: Buffer) => logs.push(d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };
  const until = Date.now() + 60_000;
  for (;;) {
    const line = STARTUP_LINE.exec(logs.join(''));
    if (line) return { url: line[1]!, pid: child.pid, logs, stop };
    if (child.exitCode !== null || Date.now() > until) {
      await stop();
      throw new Error(`serve did not start:\n${logs.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Command i's user (each command has its own, so the budget's user window never binds and every answer names its asker). */
const userOf = (i: number) => `U0B${String(i).padStart(5, '0')}`;

/** The commands (by index) answered in Slack so far: a post to their response_url, or a channel message that names their asker. */
function answered(stub: SlackStub, indexes: number[]): number {
  const responded = new Set(stub.responses.map((r) => r.path.slice('/response/b'.length)));
  const texts = stub.messages.map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`).join('\n');
  return indexes.filter((i) => responded.has(String(i)) || texts.includes(`<@${userOf(i)}>`)).length;
}

export async function serveBurst(n: number, waitJobsSeconds: number): Promise<void> {
  const stub = await new SlackStub().start();
  const serve = await startServe(stub);
  try {
    console.log(`burst of ${n} signed /kafka diagnose commands at once into the installed serve (${serve.url}; README env; default cluster sandbox):`);
    const bodies = Array.from({ length: n }, (_, i) =>
      slashBody({ text: 'diagnose', user: userOf(i), channel: `C0B${i % CHANNELS}`, responseUrl: stub.responseUrl(`b${i}`) }).replace('trigger_id=123.456.abc', `trigger_id=${i}.${Date.now()}`),
    );
    const cpuBefore = cpuMs(serve.pid);
    const started = performance.now();
    const acks = await Promise.all(bodies.map((b) => sendCommand(serve.url, b, 10_000)));
    const wallMs = performance.now() - started;
    const cpuBurst = cpuMs(serve.pid)! - cpuBefore!;
    const ok = acks.filter((a) => a.status === 200 && a.body.length > 0);
    const failures = acks.filter((a) => !ok.includes(a));
    const refused = ok.filter((a) => /Too many diagnose requests/.test(a.body));
    const accepted = ok.filter((a) => /Diagnosing \*/.test(a.body));
    const ms = acks.map((a) => a.ms);
    const f = (x: number) => `${x.toFixed(0)} ms`;
    console.log(`  failures ${failures.length}/${n}; acked ${ok.length}: ${accepted.length} accepted, ${refused.length} refused by the command budget, ${ok.length - accepted.length - refused.length} other`);
    for (const a of failures.slice(0, 5)) console.log(`    failure: HTTP ${a.status} ${a.error ?? a.body.slice(0, 120)}`);
    console.log(`  ack latency: median ${f(pct(ms, 50))}, p90 ${f(pct(ms, 90))}, p99 ${f(pct(ms, 99))}, max ${f(Math.max(...ms))}   (all ${n} answered in ${f(wallMs)})`);
    if (!Number.isNaN(cpuBurst)) console.log(`  serve's CPU from the first command sent to the last ack received: ${f(cpuBurst)} (the machine's load average: ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`);
    console.log(`  target p99 < 1000 ms and no failures: ${pct(ms, 99) < 1000 && failures.length === 0 ? 'OK' : 'MISSED'}`);
    if (waitJobsSeconds > 0) {
      const indexes = acks.flatMap((a, i) => (/Diagnosing \*/.test(a.body) ? [i] : []));
      const until = Date.now() + waitJobsSeconds * 1000;
      while (answered(stub, indexes) < indexes.length && Date.now() < until) await new Promise((r) => setTimeout(r, 1000));
      console.log(`  accepted commands answered in Slack after the burst: ${answered(stub, indexes)}/${indexes.length} (waited up to ${waitJobsSeconds} s)`);
    }
  } finally {
    await serve.stop();
    await stub.stop();
  }
}
