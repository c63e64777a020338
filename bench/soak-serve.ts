// A bounded soak of the installed `kafka-responder serve` (bin/kafka-responder.js,
// i.e. the built bundle), loopback only:
//   npx tsx bench/soak-serve.ts [--minutes 30] [--rps 3] [--full-runs 1]
// - The sandbox: started (`sandbox up`) if any of its nodes is not running, and
//   then stopped again (`sandbox down`, data kept) at the end; a sandbox that was
//   already running is left as it was. KR_SANDBOX_HOME / KR_SANDBOX_PORT_BASE come
//   from the caller's environment, as for every sandbox command.
// - A Slack Web API stub (test/slack/helpers/slack-stub.ts) and a dynalite in a
//   child process of its own, both on 127.0.0.1. serve gets
//   KR_APPROVALS_DYNAMODB_ENDPOINT pointed at that dynalite: a deviation from the
//   README's defaults (an in-process dynalite nobody else can read) that this soak
//   is about, because growth of the bot's stored state is only visible from outside.
// - serve runs with the README's local settings (signing secret, bot token,
//   SLACK_API_URL at the stub, KR_APPROVERS) plus ALERTMANAGER_TOKEN, so that the
//   soak knows the alert routes' token.
// - For --minutes it sends --rps requests a second (bounded: at most 16 in flight):
//   signed /kafka commands, clicks on the plans it asked for (mostly reject or cancel;
//   --full-runs plans of a throwaway topic's raise-rf are approved and really run),
//   Alertmanager notifications from one alert to just under 10 MB and over it,
//   SNS/CloudWatch alarms, forged Slack requests and unauthenticated alert posts.
// - Every minute (every minutes*60/8 s for runs under 8 minutes, so that growth can
//   still be judged) it prints serve's VmRSS and each dynalite table's item count
//   (Scan, Select COUNT, paginated): all items, and live ones (TTL not passed: dynalite
//   never expires items, DynamoDB does).
// Exit 1 when an authenticated valid request failed (a non-2xx answer, a timeout, a
// socket error), a forged or unauthenticated request was accepted, serve died, or
// growth went past the bounds below; 0 otherwise.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTopic, withAdmin } from '../sandbox/client.ts';
import { bootstrapServers, sandboxSettings } from '../sandbox/layout.ts';
import { closedPort } from '../test/helpers/net.ts';
import { SlackStub } from '../test/slack/helpers/slack-stub.ts';
import * as T from './soak-serve-traffic.ts';

/** Memory "kept growing": the last third's mean RSS above the middle third's by more than both, after the middle rose too. */
const RSS_BOUND = { relative: 0.1, absoluteKiB: 32 * 1024 };
/**
 * Live items "kept growing beyond the bound": in the last third, more live items added per authenticated valid request
 * than this. Some growth is by design (audit trail, posted-message refs, incident logs: TTLs of days), so the bound is per
 * request: a per-request leak of stored state shows as a rate, not as growth alone.
 */
const ITEMS_PER_VALID_REQUEST_BOUND = 3;
const MAX_IN_FLIGHT = 16;
const HEAVY_EVERY_MS = 20_000;
const PLAN_EVERY_MS = 12_000;
const { APPROVERS, REQUESTERS, CHANNELS } = T;
const BIN = fileURLToPath(new URL('../bin/kafka-responder.js', import.meta.url));

const { values: argv } = parseArgs({ options: { minutes: { type: 'string' }, rps: { type: 'string' }, 'full-runs': { type: 'string' } } });
const MINUTES = Number(argv.minutes ?? 30);
const RPS = Number(argv.rps ?? 3);
const FULL_RUNS = Number(argv['full-runs'] ?? 1);
if (!(MINUTES > 0 && MINUTES <= 24 * 60 && RPS > 0 && RPS <= 20 && FULL_RUNS >= 0)) throw new Error('--minutes 0..1440, --rps 0..20, --full-runs >= 0');
const SAMPLE_MS = MINUTES >= 8 ? 60_000 : (MINUTES * 60_000) / 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;
const runCli = (args: string[], timeoutMs: number) => promisify(execFile)(process.execPath, [BIN, ...args], { timeout: timeoutMs, encoding: 'utf8', maxBuffer: 8 << 20 });

// A watchdog: whatever hangs, the soak ends within its minutes plus 15 (set-up, drain, clean-up).
setTimeout(() => {
  console.error('soak: watchdog: over time, exiting');
  serve?.kill('SIGKILL');
  process.exit(2);
}, (MINUTES + 15) * 60_000).unref();

// ---- set-up -------------------------------------------------------------------------------
async function ensureSandbox(): Promise<boolean> {
  // `sandbox status` exits non-zero while a node is down, with the same JSON on stdout.
  const out = await runCli(['sandbox', 'status', '--json'], 60_000).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '{"nodes":[]}' }));
  const status = JSON.parse(out.stdout) as { nodes: { running: boolean }[] };
  if (status.nodes.length > 0 && status.nodes.every((n) => n.running)) return false;
  console.log('soak: the sandbox is not (all) running: sandbox up');
  await runCli(['sandbox', 'up'], 600_000);
  return true;
}

/** serve's own output, kept bounded: the last lines with their arrival time, and WARN/ERROR counts by message. */
const logRing: { at: number; line: string }[] = [];
const logCounts = new Map<string, number>();
function onServeLine(line: string): void {
  logRing.push({ at: Date.now(), line });
  if (logRing.length > 5_000) logRing.splice(0, 1_000);
  let key: string | undefined;
  if (line.startsWith('{')) {
    try {
      const j = JSON.parse(line) as { level?: string; message?: string };
      if (j.level === 'WARN' || j.level === 'ERROR' || j.level === 'CRITICAL') key = `${j.level} ${j.message}`;
    } catch {
      key = 'unparsed JSON line';
    }
  } else if (/error|exception|uncaught/i.test(line)) key = `text ${line.slice(0, 120)}`;
  if (key && (logCounts.has(key) || logCounts.size < 200)) logCounts.set(key, (logCounts.get(key) ?? 0) + 1);
}

let serve: ChildProcess | undefined;
/** Set by Ctrl-C: the traffic stops early (serve, in the same process group, stops too: not a crash then). */
let stopping = false;
let serveExit: string | undefined;
async function startServe(stubApi: string, dynamo: string, logFile: string): Promise<string> {
  const port = await closedPort();
  // What a user's shell has plus the sandbox's settings (as test/operations/serve-harness.ts), and the local bot's settings.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && /^(PATH|HOME|USER|SHELL|TMPDIR|LANG|LC_[A-Z]+|TZ|JAVA_HOME|KR_SANDBOX_[A-Z_]+|KR_KAFKA_CACHE)$/.test(k)) env[k] = v;
  Object.assign(env, {
    SLACK_SIGNING_SECRET: T.SIGNING_SECRET,
    SLACK_BOT_TOKEN: 'xoxb-soak',
    SLACK_API_URL: stubApi,
    ALERTMANAGER_TOKEN: T.ALERT_TOKEN,
    KR_APPROVERS: APPROVERS.join(','),
    KR_APPROVALS_DYNAMODB_ENDPOINT: dynamo, // see the header: the stored state is what the soak counts
  });
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  serve = child;
  const file = createWriteStream(logFile);
  let pending = '';
  const onData = (d: Buffer) => {
    file.write(d);
    const lines = (pending + d.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const l of lines) onServeLine(l);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  child.once('exit', (code, signal) => (serveExit = `exit code ${code}, signal ${signal}`));
  for (let i = 0; i < 600; i++) {
    const line = logRing.find((l) => /^kafka-responder listening on /.test(l.line))?.line;
    if (line) {
      if (!line.includes('; operations on (')) throw new Error(`serve started without operations: ${line}`);
      console.log(`soak: ${line}`);
      return `http://127.0.0.1:${port}`;
    }
    if (serveExit) break;
    await sleep(100);
  }
  throw new Error(`serve did not listen (${serveExit ?? 'still starting after 60 s'}):\n${logRing.map((l) => l.line).join('\n')}`);
}

// ---- samples --------------------------------------------------------------------------------
interface Sample {
  at: number;
  rssKiB: number;
  tables: Record<string, T.TableCount>;
  validSoFar: number;
}

async function sample(db: DynamoDBClient, pid: number): Promise<Sample> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? NaN);
  const tables = await T.countTables(db);
  return { at: Date.now(), rssKiB, tables, validSoFar: validDone };
}

/** Means of the first, middle and last third of the samples (null: too few to judge). */
function thirds(xs: number[]): [number, number, number] | null {
  if (xs.length < 6) return null;
  const k = Math.floor(xs.length / 3);
  const mean = (a: number[]) => a.reduce((s, x) => s + x, 0) / a.length;
  return [mean(xs.slice(0, k)), mean(xs.slice(k, xs.length - k)), mean(xs.slice(xs.length - k))];
}

// ---- traffic --------------------------------------------------------------------------------
interface TypeStats {
  n: number;
  statuses: Map<string, number>;
  ms: number[];
}
const stats = new Map<string, TypeStats>();
const failures: T.Outcome[] = [];
const breaches: T.Outcome[] = [];
const oddRefusals: T.Outcome[] = [];
let validDone = 0;
let slowAcks = 0;
let skipped = 0;
const inFlight = new Set<Promise<T.Outcome>>();

function record(o: T.Outcome): void {
  const s: TypeStats = stats.get(o.type) ?? { n: 0, statuses: new Map(), ms: [] };
  stats.set(o.type, s);
  s.n++;
  s.statuses.set(String(o.status), (s.statuses.get(String(o.status)) ?? 0) + 1);
  s.ms.push(o.ms);
  if (o.category === 'valid') validDone++;
  if (o.type.startsWith('slash:') || o.type.startsWith('click:')) if (o.ms > 3_000) slowAcks++;
  const twoxx = typeof o.status === 'number' && o.status >= 200 && o.status < 300;
  if (o.category === 'valid' && !o.expected) failures.push(o);
  else if (o.category !== 'valid' && twoxx) breaches.push(o);
  else if (!o.expected && oddRefusals.length < 20) oddRefusals.push(o);
}

function fire(baseUrl: string, req: T.SoakRequest, then?: (o: T.Outcome) => void): boolean {
  if (inFlight.size >= MAX_IN_FLIGHT) {
    skipped++;
    return false;
  }
  const p = T.send(baseUrl, req).then((o) => {
    record(o);
    inFlight.delete(p);
    then?.(o);
    return o;
  });
  inFlight.add(p);
  return true;
}

let seq = 0;
const clicker = new T.PlanClicker(FULL_RUNS);
let clickBusy = false;

/** Clicks go one at a time, so that an approval and the rejection after it arrive in that order. */
function nextClick(stub: SlackStub, baseUrl: string): void {
  if (clickBusy || !clicker.pending() || inFlight.size >= MAX_IN_FLIGHT) return;
  const id = `c${++seq}`;
  const req = clicker.take(stub.responseUrl(id), seq);
  if (req) clickBusy = fire(baseUrl, req, () => void (clickBusy = false));
}

// ---- the run --------------------------------------------------------------------------------
const samples: Sample[] = [];
function printSample(s: Sample, t0: number): void {
  const tables = Object.entries(s.tables).map(([t, c]) => `${t} ${c.total} (live ${c.live})`).join(' | ');
  const failed = failures.length ? `, FAILED ${failures.length}` : '';
  console.log(`[soak ${((s.at - t0) / 60_000).toFixed(1)} min] rss ${mib(s.rssKiB)} | valid requests ${s.validSoFar}${failed} | ${tables}`);
}

function summary(t0: number, run: { plans: string; stub: SlackStub }): string[] {
  const problems: string[] = [];
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;
  console.log(`\n== soak summary: ${((Date.now() - t0) / 60_000).toFixed(1)} min at ${RPS} req/s ==\nrequests by type (status×count, latency p50/p95/max):`);
  const overall = new Map<string, number>();
  for (const [type, s] of [...stats].sort(([a], [b]) => a.localeCompare(b))) {
    for (const [st, n] of s.statuses) overall.set(st, (overall.get(st) ?? 0) + n);
    const sts = [...s.statuses].map(([st, n]) => `${st}×${n}`).join(' ');
    console.log(`  ${type.padEnd(30)} ${String(s.n).padStart(5)}  ${sts.padEnd(24)} ${pct(s.ms, 50)}/${pct(s.ms, 95)}/${Math.max(...s.ms)} ms`);
  }
  console.log(`status codes: ${[...overall].map(([st, n]) => `${st}×${n}`).join(' ')}; ticks skipped at the in-flight cap: ${skipped}; Slack acks over 3 s: ${slowAcks}`);
  console.log(`authenticated valid requests: ${validDone}, failed: ${failures.length}`);
  for (const f of failures.slice(0, 20)) {
    console.log(`  FAILED ${f.type} at ${new Date(f.at).toISOString()} after ${f.ms} ms: ${f.status} ${JSON.stringify(f.answer)}\n    sent: ${JSON.stringify(f.sent)}`);
    for (const l of logRing.filter((l) => l.at >= f.at - 1_000 && l.at <= f.at + f.ms + 2_000 && /"level":"(ERROR|WARN)"|error/i.test(l.line) && !l.line.includes('rejected')).slice(0, 5)) console.log(`    serve: ${l.line.slice(0, 400)}`);
  }
  if (failures.length) problems.push(`${failures.length} authenticated valid request(s) failed`);
  console.log(`forged / unauthenticated requests accepted: ${breaches.length}`);
  for (const b of breaches.slice(0, 10)) console.log(`  ACCEPTED ${b.type}: ${b.status} ${JSON.stringify(b.answer)}`);
  if (breaches.length) problems.push(`${breaches.length} forged/unauthenticated request(s) accepted`);
  for (const o of oddRefusals) console.log(`  unexpected refusal (not counted as a failure: the request was not valid): ${o.type} ${o.status} ${JSON.stringify(o.answer.slice(0, 120))}`);

  const first = samples[0]!;
  const last = samples.at(-1)!;
  const rss = samples.map((s) => s.rssKiB);
  const th = thirds(rss);
  let rssVerdict = 'too few samples to judge (fewer than 6)';
  if (th) {
    const grew = th[1] > th[0] && th[2] - th[1] > RSS_BOUND.absoluteKiB && th[2] - th[1] > RSS_BOUND.relative * th[1];
    rssVerdict = `${grew ? 'GREW STEADILY' : 'no steady growth'} (thirds' means ${th.map(mib).join(' / ')}; bound: last over middle by >${RSS_BOUND.relative * 100}% and >${mib(RSS_BOUND.absoluteKiB)})`;
    if (grew) problems.push('serve memory kept growing');
  }
  console.log(`memory (VmRSS): start ${mib(first.rssKiB)}, end ${mib(last.rssKiB)}, max ${mib(Math.max(...rss))}; ${rssVerdict}`);
  const k = Math.floor(samples.length / 3);
  for (const t of Object.keys(last.tables)) {
    const c = (s: Sample | undefined) => s?.tables[t] ?? { total: 0, live: 0 };
    let verdict = 'too few samples to judge';
    if (samples.length >= 6) {
      const mid = samples[samples.length - 1 - k]!;
      const requests = Math.max(1, last.validSoFar - mid.validSoFar);
      const perReq = (c(last).live - c(mid).live) / requests;
      const steady = thirds(samples.map((s) => c(s).live));
      const growing = !!steady && steady[2] > steady[1] && steady[1] > steady[0];
      verdict = `${growing ? 'grew steadily' : 'no steady growth'}; last third: ${perReq.toFixed(2)} live items per valid request (bound ${ITEMS_PER_VALID_REQUEST_BOUND})`;
      if (growing && perReq > ITEMS_PER_VALID_REQUEST_BOUND) problems.push(`${t}: live items kept growing, ${perReq.toFixed(2)} per valid request`);
    }
    console.log(`items ${t}: start ${c(first).total} (live ${c(first).live}), end ${c(last).total} (live ${c(last).live}); ${verdict}`);
  }
  console.log(`operations: ${run.plans}`);
  const answers = new Map<string, number>();
  for (const r of run.stub.responses) {
    const type = clicker.clickIds.get(r.path.slice('/response/'.length));
    if (type) answers.set(`${type} → ${String(r.body.text).slice(0, 90)}`, (answers.get(`${type} → ${String(r.body.text).slice(0, 90)}`) ?? 0) + 1);
  }
  for (const [a, n] of answers) console.log(`  ${n}× ${a}`);
  console.log(`serve log, WARN/ERROR by message (top 15):`);
  for (const [m, n] of [...logCounts].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${String(n).padStart(5)}  ${m.slice(0, 160)}`);
  if (serveExit && !stopping) problems.push(`serve exited during the soak (${serveExit})`);
  return problems;
}

async function main(): Promise<number> {
  const startedSandbox = await ensureSandbox();
  const bootstrap = bootstrapServers(sandboxSettings());
  const suffix = Date.now().toString(36);
  const topics = { orders: `soak-orders-${suffix}`, rf: `soak-rf-${suffix}`, run: `soak-run-${suffix}` };
  // The soak's own topics: one to diagnose by name, two of replication factor 1 to plan raise-rf on (one of them really runs).
  await withAdmin(bootstrap, async (admin) => {
    await createTopic(admin, topics.orders, { assignment: [[1, 2, 3], [2, 3, 1], [3, 1, 2]] });
    await createTopic(admin, topics.rf, { assignment: [[1], [2], [3]] });
    await createTopic(admin, topics.run, { assignment: [[1]] });
  });
  const dynamo = await T.startDynalite();
  const db = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const stub = await new SlackStub().start();
  const heavy = new T.HeavyBodies();
  heavy.overLimit(); // built before the clock starts
  const logFile = join(tmpdir(), `kr-soak-serve-${process.pid}.log`);
  process.once('SIGINT', () => (stopping = true));
  const t0 = Date.now();
  try {
    const url = await startServe(stub.apiUrl, dynamo.endpoint, logFile);
    console.log(`soak: ${MINUTES} min at ${RPS} req/s; Slack stub ${stub.apiUrl}; dynalite ${dynamo.endpoint}; serve log ${logFile}`);
    const weighted = T.everyday((id) => stub.responseUrl(id), topics.orders, () => ++seq);
    const totalWeight = weighted.reduce((s, [w]) => s + w, 0);
    const planTexts = [`drain 3 partial`, `raise-rf ${topics.rf} 3`, `drain 2 partial`, `raise-rf ${topics.rf} 2`];
    const heavyKinds = ['near-limit', 'over-limit', 'am-wrong-token-10MB', 'sns-no-token-10MB'] as const;
    let heavyBusy = false;
    let nPlan = 0;
    let nHeavy = 0;
    const start = Date.now();
    const deadline = start + MINUTES * 60_000;
    let nextSample = start;
    let nextPlan = start + 5_000;
    let nextHeavy = start + 10_000;
    const maxTicks = Math.ceil(MINUTES * 60 * RPS) + 10;
    for (let tick = 0; tick < maxTicks && !stopping && !serveExit && Date.now() < deadline; tick++) {
      const now = Date.now();
      if (now >= nextSample) {
        samples.push(await sample(db, serve!.pid!));
        printSample(samples.at(-1)!, start);
        nextSample += SAMPLE_MS;
        // The stub keeps what it recorded; the soak needs only recent calls and the plans.
        if (stub.calls.length > 2_000) stub.calls.splice(0, stub.calls.length - 1_000);
      }
      clicker.find(stub.topLevel(), topics.run);
      if (now >= nextPlan) {
        nextPlan += PLAN_EVERY_MS;
        const text = nPlan === 0 && FULL_RUNS > 0 ? `raise-rf ${topics.run} 2` : planTexts[nPlan % planTexts.length]!;
        fire(url, T.slash(`slash:plan-${text.split(' ')[0]}`, text, REQUESTERS[nPlan++ % REQUESTERS.length]!, CHANNELS[0]!, stub.responseUrl(`p${++seq}`)));
      } else if (now >= nextHeavy && !heavyBusy) {
        // One 10 MB body at a time, every 20 s: big, but not a flood.
        nextHeavy += HEAVY_EVERY_MS;
        heavyBusy = fire(url, heavy.request(heavyKinds[nHeavy++ % heavyKinds.length]!), () => void (heavyBusy = false));
      } else if (clicker.pending() && !clickBusy) nextClick(stub, url);
      else {
        let r = Math.random() * (totalWeight + 3);
        const entry = weighted.find(([w]) => (r -= w) < 0);
        if (entry) fire(url, entry[1]());
        else {
          // A valid help, then the very same bytes again: the replay must be refused.
          const original = T.slash('slash:help', 'help', 'U0SOAK1', CHANNELS[1]!, stub.responseUrl(`s${++seq}`));
          fire(url, original, () => void fire(url, T.replayOf(original)));
        }
      }
      await sleep(Math.max(0, start + ((tick + 1) * 1000) / RPS - Date.now()));
    }
    console.log(`soak: traffic stopped (${serveExit ? `serve died: ${serveExit}` : stopping ? 'interrupted' : 'time is up'}); waiting for ${inFlight.size} request(s) in flight`);
    await Promise.race([Promise.all(inFlight), sleep(150_000)]);
    if (!serveExit) {
      samples.push(await sample(db, serve!.pid!));
      printSample(samples.at(-1)!, start);
    }
    const runOutcomes = clicker.runPlans.map((ts) => stub.thread(ts).find((m) => /: (SUCCEEDED|FAILED|CANCELLED|STALE|EXPIRED)$/.test(m.text))?.text ?? 'not finished when the soak ended');
    const planText = `${clicker.plans.size} plans seen, ${clicker.runPlans.length} approved to run: ${runOutcomes.join('; ') || 'none'}; clicks by what the bot answered the clicker:`;
    const problems = summary(t0, { plans: planText, stub });
    for (const o of runOutcomes) if (/FAILED/.test(o)) problems.push(`the approved run ended ${o}`);
    console.log(problems.length ? `\nRESULT: FAIL\n  - ${problems.join('\n  - ')}` : '\nRESULT: PASS');
    return problems.length ? 1 : 0;
  } finally {
    if (serve && !serveExit) {
      serve.kill('SIGTERM');
      for (let i = 0; i < 600 && !serveExit; i++) await sleep(100);
      if (!serveExit) serve.kill('SIGKILL');
    }
    await stub.stop();
    db.destroy();
    dynamo.child.kill();
    await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: Object.values(topics) })).catch((err: Error) => console.error(`soak: could not delete its topics: ${err.message}`));
    if (startedSandbox) await runCli(['sandbox', 'down'], 300_000).catch((err: Error) => console.error(`soak: sandbox down: ${err.message}`));
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`soak: ${err.stack ?? err.message}`);
    serve?.kill('SIGKILL');
    process.exit(2);
  },
);
