// The production shape of a long drain, on the real sandbox, through real
// signed Slack requests to the real `kafka-responder serve` process:
//   - every job gets the deployed worker's time limit, here 30 s
//     (`serve --worker-timeout 30`), so a copy of minutes must outlive many
//     invocations: park, delayed next tick, resume;
//   - half-way the `serve` process is killed (SIGKILL, mid-invocation) and a
//     new one is started on the same DynamoDB (approvals, run state, plan
//     threads): its minute sweep (5 s here) finds the run whose lease ran out
//     and resumes it at its step;
//   - while it runs, no partition may be unavailable (polled);
//   - afterwards broker 3 holds no replica that could move, and
//     kafka-configs.sh shows no throttle on any broker or the topic;
//   - the cluster is serve's default one (host access through the local
//     executor, as the README's set-up gives); the drain itself needs none
//     (the same run without host access: operations/sandbox.int.test.ts).
// Its settings are what it is about (a store that outlives serve, a copy of
// minutes, a sweep that resumes it); a drain with every default is
// test/operations/serve-readme.int.test.ts.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { Sandbox } from '../../sandbox/cluster.ts';
import { createTopic, produce, withAdmin } from '../../sandbox/client.ts';
import { binDir, bootstrapServers, sandboxSettings } from '../../sandbox/layout.ts';
import { runScenario } from '../../sandbox/scenarios.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { slashBody } from '../slack/helpers/signed.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { ALICE, BOB, CHANNEL, REQUESTER, ServeHarness, sleep, waitFor } from './serve-harness.ts';

const up = hasSandbox();
const settings = sandboxSettings();
const bootstrap = bootstrapServers(settings);
const bin = binDir(settings);
const TOPIC = 'drain-e2e';
/**
 * A low throttle and ~28 MiB to copy: well over two minutes. Kafka 4.1's replication
 * quota is coarse (a fetch already under way returns whole batches): measured on the
 * sandbox, a copy throttled at 16-64 KiB/s still moves about 125 KiB/s.
 */
const THROTTLE = 16 * 1024;

function kafkaCli(tool: string, args: string[]): string {
  return execFileSync(`${bin}/${tool}`, ['--bootstrap-server', bootstrap, ...args], { encoding: 'utf8', timeout: 120_000 });
}

describe.skipIf(!up)('a drain that copies for minutes, through `serve --worker-timeout 30`, surviving a killed serve', () => {
  let stub: SlackStub;
  let dynamo: LocalDynamo;
  let harness: ServeHarness;
  const startServe = () => harness.start();
  const post = (path: string, body: string) => harness.post(path, body);
  const click = (actionId: string, value: string, user: string, message: StubMessage) => harness.click(actionId, value, user, message);

  beforeAll(async () => {
    stub = await new SlackStub().start();
    dynamo = await startLocalDynamo();
    harness = new ServeHarness(
      stub,
      {
        // This test kills serve and starts another: only a DynamoDB outside the process (the
        // KR_APPROVALS_DYNAMODB_ENDPOINT of docs/slack.md) keeps the approvals and the run between the two.
        KR_APPROVALS_DYNAMODB_ENDPOINT: dynamo.endpoint,
        // The new serve's sweep resumes the run whose lease ran out: every 5 s instead of every minute.
        KR_SWEEP_SECONDS: '5',
        // A copy of minutes (see THROTTLE), polled often enough to see its progress.
        KR_THROTTLE_BYTES_PER_SEC: String(THROTTLE),
        KR_OPERATIONS_POLL_SECONDS: '2',
      },
      // The deployed worker's time limit per job, here 30 s, so the copy outlives many invocations.
      ['--worker-timeout', '30'],
    );
    await runScenario(new Sandbox(settings, () => {}), 'healthy');
    await withAdmin(bootstrap, async (admin) => {
      if ((await admin.listTopics()).includes(TOPIC)) await admin.deleteTopics({ topics: [TOPIC] });
      await createTopic(admin, TOPIC, { assignment: [[3], [3], [3], [3]] });
    });
    // ~7 MiB per partition, all led by broker 3.
    for (let p = 0; p < 4; p++) await produce(bootstrap, TOPIC, p, 7_000, 1, 0, 1_000);
  }, 300_000);

  afterAll(async () => {
    harness?.stop();
    await stub?.stop();
    await dynamo?.close();
    await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [TOPIC] })).catch(() => undefined);
  });

  it('plans, is approved by two people, copies across many 30 s invocations and a killed serve, and leaves nothing behind', async () => {
    await startServe();
    const ack = await post('/slack/events', slashBody({ text: 'drain 3 partial', user: REQUESTER, channel: CHANNEL, responseUrl: stub.responseUrl('slash') }));
    expect(String(ack.text)).toMatch(/Planning: partially drain broker 3/);
    const plan = await waitFor('the plan message', () => stub.topLevel(CHANNEL).find((m) => m.text.startsWith('REQUESTED: ')), 120_000);
    expect(plan.text).toMatch(/\(0 of 2 approvals\)/);
    const approve = (plan.blocks as { type: string; elements?: { action_id: string; value: string }[] }[]).flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'ops:approve')!;
    const id = approve.value;
    await click('ops:approve', id, ALICE, plan);
    await click('ops:approve', id, BOB, plan);

    // Poll availability the whole time, through the protocol (cheap) every second.
    const connection = parseConnectionConfig({ bootstrap: bootstrap.split(',') });
    let polls = 0;
    const unavailable: string[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const s = await takeSnapshot(connection, { topics: [TOPIC], timeoutMs: 10_000 }).catch(() => null);
        if (s) {
          polls++;
          for (const p of s.topics.find((t) => t.name === TOPIC)?.partitions ?? []) if (p.leader < 0) unavailable.push(`${TOPIC}-${p.partition} at ${new Date().toISOString()}`);
        }
        await sleep(1_000);
      }
    })();

    const store = new ApprovalStore(dynamo.client, { tableName: 'kafka-responder-approvals' });
    try {
      // Copying: wait for progress from a running invocation, then kill serve in the middle of one.
      await waitFor('copy progress', async () => (await store.get(id))?.run?.progress?.text.includes('copied'), 120_000);
      await waitFor('a running (not parked) invocation', async () => {
        const r = await store.get(id);
        return r?.status === 'EXECUTING' && r.lease && !r.lease.parked && (r.run?.invocations ?? 0) >= 2;
      }, 120_000, 250);
      const before = (await store.get(id))!;
      harness.serve!.kill('SIGKILL');
      await new Promise((r) => harness.serve!.once('exit', r));
      const killedAt = Date.now();
      expect(before.status).toBe('EXECUTING');

      await startServe();
      const finished = await waitFor(
        'the run to finish',
        async () => {
          const r = await store.get(id);
          return r && ['SUCCEEDED', 'FAILED', 'CANCELLED', 'STALE'].includes(r.status) ? r : undefined;
        },
        600_000,
        2_000,
      );
      polling = false;
      await poller;

      expect(finished.status, finished.outcome?.summary).toBe('SUCCEEDED');
      const events = finished.events;
      const resumed = events.find((e) => e.type === 'resumed');
      expect(resumed, events.map((e) => `${e.type}: ${e.message}`).join('\n')).toBeDefined();
      const submitted = events.find((e) => e.type === 'step' && e.data?.name === 'reassign')!.at;
      const copied = events.find((e) => e.type === 'step' && e.data?.name === 'wait-reassignment')!.at;
      const copySeconds = (copied - submitted) / 1000;
      console.log(
        `[serve drain] copy ${copySeconds.toFixed(0)} s over ${finished.run?.invocations} worker invocations (30 s limit); ` +
          `serve killed at step ${before.run!.cursor + 1}, resumed ${((resumed!.at - killedAt) / 1000).toFixed(0)} s later by the new serve's sweep; ` +
          `${polls} availability polls, unavailable: ${unavailable.length}; last progress: ${before.run?.progress?.text}`,
      );
      expect(copySeconds).toBeGreaterThanOrEqual(120);
      expect(finished.run!.invocations).toBeGreaterThanOrEqual(5);
      expect(unavailable).toEqual([]);
      expect(polls).toBeGreaterThan(60);

      // Kafka's own tools: broker 3 holds no replica of the topic; no throttle anywhere.
      const described = kafkaCli('kafka-topics.sh', ['--describe', '--topic', TOPIC]);
      expect(described).not.toMatch(/Replicas: [\d,]*3/);
      for (const b of ['1', '2', '3']) expect(kafkaCli('kafka-configs.sh', ['--describe', '--entity-type', 'brokers', '--entity-name', b])).not.toMatch(/throttled/);
      expect(kafkaCli('kafka-configs.sh', ['--describe', '--entity-type', 'topics', '--entity-name', TOPIC])).not.toMatch(/throttled/);
      expect(kafkaCli('kafka-reassign-partitions.sh', ['--list'])).not.toMatch(new RegExp(TOPIC));

      // The thread told the story: progress with bytes and rate, the resume, the summary.
      // Posts go out at Slack's pace per channel: the summary may trail the run's end by a few seconds.
      const thread = await waitFor('the summary in the plan thread', () => {
        const t = stub.thread(plan.ts);
        return t.some((m) => /: SUCCEEDED$/.test(m.text)) ? t : undefined;
      }, 60_000);
      const progress = thread.filter((m) => /copied/.test(m.text) || m.history.some((h) => /copied/.test(String(h))));
      expect(progress.length, thread.map((m) => m.text).join('\n')).toBeGreaterThan(0);
      expect(thread.some((m) => /Resumed at step \d+ of \d+/.test(m.text))).toBe(true);
      // The outcome, whatever order the last step line and the summary were delivered in.
      const texts = thread.map((m) => m.text).join('\n');
      expect(thread.some((m) => /: SUCCEEDED$/.test(m.text)), texts).toBe(true);
      expect(thread.some((m) => /: (FAILED|STALE|CANCELLED|EXPIRED)$/.test(m.text)), texts).toBe(false);
    } finally {
      polling = false;
      await poller;
    }
  }, 900_000);
});
