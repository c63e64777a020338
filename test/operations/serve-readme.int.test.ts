// The README's local bot, started exactly as the README starts it: the
// installed bin (`kafka-responder serve`, the bundle) with KR_APPROVERS, the
// signing secret and the bot token, SLACK_API_URL at the local Slack stub, the
// test run's sandbox, and nothing else (no KR_APPROVALS_DYNAMODB_ENDPOINT: the
// approvals live in serve's own in-process dynalite, as a user's do).
//   - its start-up line says operations are on (and off, with the reason, without approvers);
//   - the incident-1 outage (last in-sync leader killed and wiped): `/kafka elect-leader`
//     and two signed Approve clicks from two approvers put the chosen replica in charge,
//     as `kafka-topics.sh --describe` shows; then `/kafka diagnose` and `/kafka timeline`
//     export that diagnosis thread's postmortem timeline from the same in-process store;
//   - a drain with every operations default (throttle, reassignment poll, sweep, worker
//     limit): approved by two people, broker 3 ends with no replica and no throttle is left,
//     as kafka-topics.sh, kafka-configs.sh and kafka-reassign-partitions.sh show.
import { execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from '../../sandbox/cluster.ts';
import { createTopic, produce, withAdmin } from '../../sandbox/client.ts';
import { binDir, bootstrapServers, sandboxSettings } from '../../sandbox/layout.ts';
import { runScenario } from '../../sandbox/scenarios.ts';
import { closedPort } from '../helpers/net.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { slashBody } from '../slack/helpers/signed.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';
import { ALICE, BIN, BOB, CHANNEL, REQUESTER, STARTUP_LINE, ServeHarness, readmeServeEnv, requestIdOf, threadOutcome, waitFor } from './serve-harness.ts';

const up = hasSandbox();
const settings = sandboxSettings();

/** Starts serve with `env`, returns everything it printed up to its start-up line, and stops it. */
async function startupOutput(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(await closedPort())], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await waitFor('the start-up line', () => STARTUP_LINE.test(out) || child.exitCode !== null, 60_000, 100);
    return out;
  } finally {
    child.kill('SIGTERM');
  }
}

describe("serve's start-up line", () => {
  let stub: SlackStub;
  beforeAll(async () => {
    stub = await new SlackStub().start();
  });
  afterAll(async () => {
    await stub?.stop();
  });

  it('with KR_APPROVERS: operations on, approvals in the in-process dynalite', async () => {
    const out = await startupOutput(readmeServeEnv(stub.apiUrl));
    const line = STARTUP_LINE.exec(out)?.[0];
    expect(line, out).toBeDefined();
    expect(line).toMatch(/; operations on \(2 approvers, 2 approvals per plan\);/);
    expect(out).not.toMatch(/operations are off/);
    expect(out).toMatch(/^note: local DynamoDB: .*approvals \(table kafka-responder-approvals\) in an in-process dynalite/m);
  });

  it('without approvers: operations are off, and the line says why', async () => {
    const { KR_APPROVERS: _unset, ...env } = readmeServeEnv(stub.apiUrl);
    const line = STARTUP_LINE.exec(await startupOutput(env))?.[0];
    expect(line).toMatch(/; operations are off: no approvers configured \(approvals\.approvers \/ KR_APPROVERS\);/);
  });
});

describe.skipIf(!up)('the README serve on the sandbox: a two-person leader override', () => {
  let stub: SlackStub;
  let harness: ServeHarness;

  beforeAll(async () => {
    stub = await new SlackStub().start();
    harness = new ServeHarness(stub);
  });

  afterAll(async () => {
    harness?.stop();
    await stub?.stop();
  });

  it('isr-one-leader-lost: /kafka elect-leader orders 0 3, approved by two people, puts broker 3 in charge', async () => {
    const sc = await runScenario(new Sandbox(settings, () => {}), 'isr-one-leader-lost');
    expect(sc.expect.bestReplica).toBe(3);
    await harness.start();

    const ack = await harness.post('/slack/events', slashBody({ text: 'elect-leader orders 0 3', user: REQUESTER, channel: CHANNEL, responseUrl: stub.responseUrl('slash') }));
    expect(String(ack.text)).toMatch(/Planning: elect a leader for orders-0 \(replica 3\)/);
    const plan = await waitFor('the plan message', () => stub.topLevel(CHANNEL).find((m) => m.text.startsWith('REQUESTED: ')), 120_000, 250);
    expect(plan.text).toMatch(/\(0 of 2 approvals\)/);
    const id = requestIdOf(plan);

    // The requester is no approver: their click does not count. Then two distinct approvers.
    expect(await harness.clickAnswer('ops:approve', id, REQUESTER, plan)).toMatch(/Not counted/);
    await harness.click('ops:approve', id, ALICE, plan);
    const secondApproval = Date.now();
    await harness.click('ops:approve', id, BOB, plan);
    const outcome = await threadOutcome(stub, plan.ts, 300_000, 250);
    const seconds = (Date.now() - secondApproval) / 1000;
    expect(outcome.status, outcome.summary).toBe('SUCCEEDED');

    // Kafka's own tool: broker 3 leads partition 0, and holds what it held.
    const kafkaCli = (tool: string, args: string[]) => execFileSync(`${binDir(settings)}/${tool}`, ['--bootstrap-server', bootstrapServers(settings), ...args], { encoding: 'utf8', timeout: 120_000 });
    expect(kafkaCli('kafka-topics.sh', ['--describe', '--topic', 'orders'])).toMatch(/Partition: 0\s+Leader: 3\s/);
    expect(kafkaCli('kafka-get-offsets.sh', ['--topic', 'orders', '--partitions', '0']).trim()).toBe(`orders:0:${sc.expect.messagesPerReplica!['3']}`);

    // A diagnosis thread's postmortem timeline, from serve's own in-process store (the default no other test runs).
    const before = new Set(stub.topLevel(CHANNEL).map((m) => m.ts));
    await harness.post('/slack/events', slashBody({ text: 'diagnose', user: ALICE, channel: CHANNEL, responseUrl: stub.responseUrl('diagnose') }));
    const diagnosis = await waitFor('the diagnosis thread', () => stub.topLevel(CHANNEL).find((m) => !before.has(m.ts) && stub.thread(m.ts).length > 0), 120_000, 250);
    const link = `https://acme.slack.com/archives/${CHANNEL}/p${diagnosis.ts.replace('.', '')}`;
    const asked = await harness.post('/slack/events', slashBody({ text: `timeline ${link}`, user: ALICE, channel: CHANNEL, responseUrl: stub.responseUrl('timeline') }));
    const file = await waitFor('the timeline file in the diagnosis thread', () => stub.uploads.find((u) => u.filename?.startsWith('timeline-') && u.content), 60_000, 250).catch((e: Error) => {
      throw new Error(`${e.message}; ack ${JSON.stringify(asked)}; responses ${JSON.stringify(stub.responses.map((r) => r.body.text))}`);
    });
    expect(file.thread_ts).toBe(diagnosis.ts);
    expect(file.content).toContain('Diagnosis of sandbox');
    console.log(`[serve README] ${harness.startupLine}\n  leader override approved by ${ALICE} and ${BOB}: second approval → summary in the thread ${seconds.toFixed(1)} s; broker 3 leads orders-0`);
  }, 600_000);
});

describe.skipIf(!up)('the README serve on the sandbox: a drain with the operations defaults', () => {
  const TOPIC = 'drain-defaults';
  const bootstrap = bootstrapServers(settings);
  const kafkaCli = (tool: string, args: string[]) => execFileSync(`${binDir(settings)}/${tool}`, ['--bootstrap-server', bootstrap, ...args], { encoding: 'utf8', timeout: 120_000 });
  let stub: SlackStub;
  let harness: ServeHarness;

  beforeAll(async () => {
    stub = await new SlackStub().start();
    harness = new ServeHarness(stub);
    await runScenario(new Sandbox(settings, () => {}), 'healthy');
    await withAdmin(bootstrap, async (admin) => {
      if ((await admin.listTopics()).includes(TOPIC)) await admin.deleteTopics({ topics: [TOPIC] });
      await createTopic(admin, TOPIC, { assignment: [[3], [3]] });
    });
    for (let p = 0; p < 2; p++) await produce(bootstrap, TOPIC, p, 500, 1);
  }, 300_000);

  afterAll(async () => {
    harness?.stop();
    await stub?.stop();
    await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [TOPIC] })).catch(() => undefined);
  });

  it('drain 3 partial: approved by two people, moves every replica off broker 3 and leaves no throttle', async () => {
    await harness.start();
    const ack = await harness.post('/slack/events', slashBody({ text: 'drain 3 partial', user: REQUESTER, channel: CHANNEL, responseUrl: stub.responseUrl('slash') }));
    expect(String(ack.text)).toMatch(/Planning: partially drain broker 3/);
    const plan = await waitFor('the plan message', () => stub.topLevel(CHANNEL).find((m) => m.text.startsWith('REQUESTED: ')), 120_000, 250);
    const id = requestIdOf(plan);
    await harness.click('ops:approve', id, ALICE, plan);
    const approved = Date.now();
    await harness.click('ops:approve', id, BOB, plan);
    const outcome = await threadOutcome(stub, plan.ts, 300_000, 250);
    expect(outcome.status, outcome.summary).toBe('SUCCEEDED');
    console.log(`[serve README] drain 3 partial with the operations defaults: second approval → summary ${((Date.now() - approved) / 1000).toFixed(1)} s`);

    expect(kafkaCli('kafka-topics.sh', ['--describe', '--topic', TOPIC])).not.toMatch(/Replicas: [\d,]*3/);
    for (const b of ['1', '2', '3']) expect(kafkaCli('kafka-configs.sh', ['--describe', '--entity-type', 'brokers', '--entity-name', b])).not.toMatch(/throttled/);
    expect(kafkaCli('kafka-configs.sh', ['--describe', '--entity-type', 'topics', '--entity-name', TOPIC])).not.toMatch(/throttled/);
    expect(kafkaCli('kafka-reassign-partitions.sh', ['--list'])).not.toMatch(new RegExp(TOPIC));
  }, 600_000);
});
