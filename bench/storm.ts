// Holding up during an incident: the ack path under a burst of slash commands,
// and an alert storm through `serve`.
//   npx tsx bench/storm.ts [--burst 200] [--rounds 3] [--notifications 500] [--groups 20] [--pace-ms 1000]
// 1. Burst: N signed slash commands at once into one Slack handler (state on
//    dynalite in its own process, the queue a recorder): ack latency p50/p95/p99/max
//    and failures, per round. One process takes the whole burst here; on Lambda
//    each instance answers one command at a time, so this is the harsh case.
// 2. Storm: the notifications across the groups through `serve` (HTTP, handlers,
//    in-process worker, serve's dynalite), Slack a local stub answering 429 with
//    Retry-After for the first 2 s and posts paced at --pace-ms per channel
//    (Slack's ~1 message a second by default). The diagnosis is a stand-in that
//    takes 2 s and counts how often the cluster would be read: diagnoses per storm.
// Loopback only; counts and time bounded.
import { parseConfig } from '../lib/config/schema.ts';
import { startLocalServer } from '../lib/local/server.ts';
import type { Job, JobQueue } from '../lib/queue/job.ts';
import { buildSlackHandler } from '../lib/root/slack.ts';
import type { Log } from '../lib/runtime/log.ts';
import { startDynalite } from '../test/alerts/helpers/dynalite.ts';
import { alertmanagerPayload } from '../test/alerts/fixtures/samples.ts';
import { BASE_CONFIG, CountingDiagnoser } from '../test/slack/helpers/harness.ts';
import { SIGNING_SECRET, slashEvent } from '../test/slack/helpers/signed.ts';
import { SlackStub } from '../test/slack/helpers/slack-stub.ts';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : def;
};
const BURST = flag('--burst', 200);
const ROUNDS = flag('--rounds', 3);
const NOTIFICATIONS = flag('--notifications', 500);
const GROUPS = flag('--groups', 20);
const PACE_MS = flag('--pace-ms', 1000);
const SHARE_SECONDS = 30;

const quiet: Log = { info: () => {}, warn: () => {}, error: () => {}, with: () => quiet };
let errors = 0;
const counting: Log = { info: () => {}, warn: () => {}, error: () => void errors++, with: () => counting };

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function burst(): Promise<void> {
  const db = await startDynalite({ separateProcess: true });
  const jobs: Job[] = [];
  const queue: JobQueue = { enqueue: async (job) => void jobs.push(job) };
  const handler = buildSlackHandler({ config: parseConfig(BASE_CONFIG), queue, store: db.store, log: quiet, signingSecret: SIGNING_SECRET, botToken: 'xoxb-bench', slackApiUrl: 'http://127.0.0.1:9/api/' });
  console.log(`ack burst: ${BURST} signed slash commands at once, one handler, state on dynalite (own process):`);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const before = jobs.length;
      const started = performance.now();
      const results = await Promise.all(
        Array.from({ length: BURST }, async (_, i) => {
          const t = performance.now();
          const res = await handler(slashEvent({ text: `diagnose sandbox r${round}-${i}`, user: i % 2 ? 'U0ALICE' : 'U0BOB', responseUrl: `http://127.0.0.1:9/r/${round}/${i}` }));
          const failed = res.statusCode !== 200 || /failed on my side|could not queue/.test(res.body);
          return { ms: performance.now() - t, failed };
        }),
      );
      const ms = results.map((r) => r.ms);
      const failures = results.filter((r) => r.failed).length;
      console.log(
        `  round ${round + 1}: p50 ${pct(ms, 50).toFixed(0)} ms, p95 ${pct(ms, 95).toFixed(0)} ms, p99 ${pct(ms, 99).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms; ` +
          `failures ${failures}; queued ${jobs.length - before}; burst wall ${(performance.now() - started).toFixed(0)} ms   Slack deadline 3000 ms: ${Math.max(...ms) < 3000 && failures === 0 ? 'OK' : 'MISSED'}`,
      );
    }
  } finally {
    await db.close();
  }
}

async function storm(): Promise<void> {
  const stub = await new SlackStub().start();
  const diagnoser = new CountingDiagnoser(2000);
  const token = 'bench-am-token-0123456789';
  const config = parseConfig({ ...BASE_CONFIG, clusters: BASE_CONFIG.clusters.map((c) => ({ ...c, load: { shareDiagnosisSeconds: SHARE_SECONDS } })) });
  const server = await startLocalServer({
    config,
    signingSecret: 'bench',
    botToken: 'xoxb-bench',
    alertmanagerToken: token,
    log: counting,
    slackApiUrl: stub.apiUrl,
    port: 0,
    diagnoser,
    sweepIntervalMs: 0,
    slackDelivery: { postIntervalMs: PACE_MS },
  });
  console.log(`\nalert storm through serve: ${NOTIFICATIONS} Alertmanager notifications, ${GROUPS} groups, Slack 429 for the first 2 s, posts paced ${PACE_MS} ms per channel:`);
  try {
    stub.rateLimitFor(2000, 1);
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 25 }, async () => {
        while (next < NOTIFICATIONS && Date.now() - started < 60_000) {
          const i = next++;
          const group = i % GROUPS;
          const base = alertmanagerPayload('firing');
          const res = await fetch(`${server.url}/alerts/alertmanager`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ ...base, groupKey: `{}:{storm="${group}"}`, alerts: [{ ...base.alerts[0]!, fingerprint: `fp-${i}` }] }),
          });
          await res.arrayBuffer();
        }
      }),
    );
    const sentMs = Date.now() - started;
    await server.queue.idle();
    const doneMs = Date.now() - started;
    const threads = stub.topLevel('C0INCIDENT');
    const answered = threads.filter((p) => stub.thread(p.ts).some((m) => /finding/.test(m.text))).length;
    console.log(`  sent in ${sentMs} ms; every job done after ${doneMs} ms`);
    console.log(`  threads ${threads.length}/${GROUPS}, groups answered with the diagnosis ${answered}/${GROUPS}`);
    console.log(`  diagnoses (cluster reads) per storm: ${diagnoser.snapshots}   (one per ${SHARE_SECONDS} s window: ${diagnoser.snapshots <= Math.ceil(doneMs / (SHARE_SECONDS * 1000)) ? 'OK' : 'MISSED'})`);
    console.log(`  Slack calls ${stub.calls.length} (429 answered: ${stub.calls.filter((c) => c.status === 429).length}); messages not delivered: ${errors}`);
  } finally {
    await server.close();
    await stub.stop();
  }
}

await burst();
await storm();
