// Broker restarts on the real sandbox, through signed Slack requests to the
// real `kafka-responder serve` (worker time limit 30 s, so waits park and
// resume across invocations), with two approvals each:
//   - a restart that would take an RF-1 partition offline is refused, naming it;
//   - a rolling restart of every node while an acks=all producer runs (on 4.x the
//     three KRaft controllers first, one at a time, the active one last, each back
//     in the quorum and caught up before the next; then the three brokers):
//     no failed produce request, no partition ever without a leader (polled),
//     every node has a new pid, no broker recovered logs uncleanly, the quorum whole;
//   - a broker whose graceful stop outlasts the bound: the run pauses and says
//     so (nothing kills it); Cancel ends it, the broker exits by itself with its
//     clean-shutdown marker, and the sweep's cleanup starts it again.
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { SLOW_STOP_FILE, Sandbox, isAlive, markLog, readSince, type LogMark } from '../../sandbox/cluster.ts';
import { createTopic, kafkaClient, withAdmin } from '../../sandbox/client.ts';
import { BROKER_IDS, bootstrapServers, controllerIds, hasControllerQuorum, nodeLayout, sandboxSettings } from '../../sandbox/layout.ts';
import { quorumHealth } from '../../lib/kafka/quorum-health.ts';
import { runScenario } from '../../sandbox/scenarios.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { slashBody } from '../slack/helpers/signed.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { ALICE, BOB, CHANNEL, REQUESTER, ServeHarness, requestIdOf, sleep, threadOutcome, waitFor } from './serve-harness.ts';

const up = hasSandbox();
const settings = sandboxSettings();
const bootstrap = bootstrapServers(settings);
const RF1_TOPIC = 'restart-rf1';
const TOPIC = 'restart-rf3';
/** Short on purpose: a sandbox broker stops in about a second. */
const STOP_BOUND_SECONDS = 12;
/** Kafka's LogManager lines when a log dir had no clean-shutdown marker (2.6–4.x wordings). */
const UNCLEAN_RECOVERY = /since no clean shutdown file was found/;
/** 4.x: three KRaft controllers, restarted first; 3.9 KRaft's lone controller and ZooKeeper mode: brokers only. */
const CONTROLLERS = hasControllerQuorum(settings) ? controllerIds(settings) : [];
const NODES = [...CONTROLLERS, ...BROKER_IDS];

describe.skipIf(!up)('broker restarts through `serve`: refused, rolling, and a stop that overruns its bound', () => {
  let stub: SlackStub;
  let harness: ServeHarness;
  let seq = 0;
  const sandbox = new Sandbox(settings, () => {});
  const post = (path: string, body: string) => harness.post(path, body);
  const click = (actionId: string, value: string, user: string, message: StubMessage) => harness.click(actionId, value, user, message);

  /** Slash command → plan message → two approvals → the run's outcome, as the thread's summary tells it. */
  async function approvedRun(text: string, expectPlan: RegExp, timeoutMs: number) {
    const before = stub.topLevel(CHANNEL).length;
    const ack = await post('/slack/events', slashBody({ text, user: REQUESTER, channel: CHANNEL, responseUrl: stub.responseUrl(`slash-${++seq}`) }));
    expect(String(ack.text)).toMatch(/Planning:/);
    const plan = await waitFor('the plan message', () => stub.topLevel(CHANNEL).slice(before).find((m) => m.text.startsWith('REQUESTED: ')), 120_000);
    expect(plan.text).toMatch(expectPlan);
    const id = requestIdOf(plan);
    await click('ops:approve', id, ALICE, plan);
    await click('ops:approve', id, BOB, plan);
    const startedAt = Date.now();
    const finished = await threadOutcome(stub, plan.ts, timeoutMs, 500);
    return { plan, finished, seconds: (Date.now() - startedAt) / 1000 };
  }

  beforeAll(async () => {
    stub = await new SlackStub().start();
    await runScenario(sandbox, 'healthy');
    for (const id of BROKER_IDS) await rm(join(nodeLayout(settings, id).hostDir, SLOW_STOP_FILE), { force: true });
    // Nodes started before the sandbox wrote its service script get one now.
    for (const id of NODES) {
      if (!existsSync(join(nodeLayout(settings, id).hostDir, 'sandbox-service.sh'))) {
        await sandbox.stop(id);
        await sandbox.start(id);
      }
    }
    await withAdmin(bootstrap, async (admin) => {
      const existing = await admin.listTopics();
      const stale = [RF1_TOPIC, TOPIC].filter((t) => existing.includes(t));
      if (stale.length) {
        // ZooKeeper mode deletes a topic once every replica's broker has: the request may time out meanwhile (2.8).
        await admin.deleteTopics({ topics: stale, timeout: 30_000 }).catch(() => undefined);
        await waitFor('the stale topics deleted', async () => !(await admin.listTopics()).some((t) => stale.includes(t)), 120_000);
      }
      await sleep(1_000);
      await createTopic(admin, RF1_TOPIC, { assignment: [[2], [2]] });
      await createTopic(admin, TOPIC, { assignment: [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 3, 2], [2, 1, 3], [3, 2, 1]], configs: { 'min.insync.replicas': '2' } });
    });
    harness = new ServeHarness(
      stub,
      {
        // Waits polled every second rather than every few, so the test sees each broker's stop and start.
        KR_OPERATIONS_POLL_SECONDS: '1',
        // The bound a graceful stop may take (default 900 s), short for the last test.
        KR_RESTART_STOP_BOUND_SECONDS: String(STOP_BOUND_SECONDS),
        KR_RESTART_READY_TIMEOUT_SECONDS: '240',
      },
      // The deployed worker's time limit per job, here 30 s, so waits park and resume across invocations.
      ['--worker-timeout', '30'],
    );
    await harness.start();
  }, 300_000);

  afterAll(async () => {
    harness?.stop();
    await stub?.stop();
    for (const id of BROKER_IDS) await rm(join(nodeLayout(settings, id).hostDir, SLOW_STOP_FILE), { force: true });
    await sandbox.up().catch(() => undefined);
    await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [RF1_TOPIC, TOPIC] })).catch(() => undefined);
  }, 300_000);

  it('refuses to restart a broker that is the only replica of a partition, naming the partitions and the fix', async () => {
    const before = stub.topLevel(CHANNEL).length;
    await post('/slack/events', slashBody({ text: 'restart 2', user: REQUESTER, channel: CHANNEL, responseUrl: stub.responseUrl('slash-refused') }));
    const refusal = await waitFor('the refusal', () => stub.topLevel(CHANNEL).slice(before).find((m) => m.text.startsWith('No plan for restart broker 2')), 120_000);
    expect(refusal.text).toMatch(/would go offline/);
    expect(refusal.text).toContain(`${RF1_TOPIC}-0`);
    expect(refusal.text).toContain(`${RF1_TOPIC}-1`);
    expect(refusal.text).toMatch(/drain/);
    expect(refusal.text).toMatch(/replication factor/);
    await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [RF1_TOPIC] }));
    await waitFor('the RF-1 topic to be gone', () => withAdmin(bootstrap, async (a) => !(await a.listTopics()).includes(RF1_TOPIC)), 60_000);
  }, 240_000);

  it('rolls every node (controllers first, the active one last) while an acks=all producer runs: nothing fails, nothing goes offline, every pid changes, no unclean recovery', async () => {
    const pidsBefore = new Map((await sandbox.status()).filter((s) => NODES.includes(s.id)).map((s) => [s.id, s.pid]));
    const marks = new Map<number, LogMark>();
    for (const id of NODES) marks.set(id, await markLog(join(nodeLayout(settings, id).logsDir, 'server.log')));
    const connection = parseConnectionConfig({ bootstrap: bootstrap.split(',') });
    // The active controller now: it must be the last controller restarted.
    const leaderBefore = CONTROLLERS.length ? (await takeSnapshot(connection, { topics: [TOPIC], timeoutMs: 20_000 })).quorum?.leaderId : null;

    // Producer: acks=all, idempotent, one small batch at a time, for the whole run.
    const producer: Producer = kafkaClient(bootstrap, 'restart-e2e-producer').producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner, retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 2_000 } });
    await producer.connect();
    let producing = true;
    let sent = 0;
    const failures: string[] = [];
    const producerLoop = (async () => {
      while (producing) {
        try {
          await producer.send({ topic: TOPIC, acks: -1, messages: [{ key: String(sent % 60), value: `m${sent}` }] });
          sent++;
        } catch (err) {
          failures.push(`${new Date().toISOString()} ${(err as Error).message}`);
        }
        await sleep(20);
      }
    })();

    // Availability: every partition of the topic and of __consumer_offsets has a leader, polled every second.
    let polls = 0;
    const unavailable: string[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const s = await takeSnapshot(connection, { topics: [TOPIC, '__consumer_offsets'], timeoutMs: 10_000 }).catch(() => null);
        if (s) {
          polls++;
          const live = new Set(s.brokers.map((b) => b.id));
          for (const t of s.topics) for (const p of t.partitions) if (p.leader < 0 || !live.has(p.leader)) unavailable.push(`${t.name}-${p.partition} at ${new Date().toISOString()}`);
        }
        await sleep(1_000);
      }
    })();

    let result;
    try {
      result = await approvedRun('rolling-restart', CONTROLLERS.length ? /rolling restart of 3 controllers then 3 brokers/ : /rolling restart of 3 brokers/, 1_500_000);
    } finally {
      polling = false;
      producing = false;
      await poller;
      await producerLoop;
      await producer.disconnect().catch(() => undefined);
    }
    const { finished, plan, seconds } = result;
    expect(finished.status, finished.summary).toBe('SUCCEEDED');

    // Per broker, from the step messages in the thread (posted as each step finishes, at Slack's pace).
    const stepPosts = stub.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === plan.ts);
    const nameOf = (id: number) => `${CONTROLLERS.includes(id) ? 'controller' : 'broker'} ${id}`;
    const stepAt = (name: string, id: number) => stepPosts.find((c) => String(c.args.text).endsWith(` ${name}: ok`) && new RegExp(`${nameOf(id)}\\b`).test(JSON.stringify(c.args.blocks)))?.at;
    // The order the plan gave: "(101 → 102 → 100, then 2 → 1 → 3)", or the brokers' alone.
    const order = (plan.text.match(/rolling restart of [^(]*\(([\d →,then]+)\)/)?.[1] ?? '').split(/ → |, then /).map(Number);
    expect([...order].sort((a, b) => a - b), plan.text).toEqual([...NODES].sort((a, b) => a - b));
    const perNode = order.map((id) => {
      const check = stepAt('restart-check', id);
      const ready = stepAt(CONTROLLERS.includes(id) ? 'wait-controller-ready' : 'wait-broker-ready', id);
      return { node: nameOf(id), check, seconds: check && ready ? (ready - check) / 1000 : null };
    });
    console.log(
      `[serve restart] rolling restart of ${CONTROLLERS.length ? '3 controllers then ' : ''}3 brokers: ${seconds.toFixed(0)} s from the second approval to the summary; ` +
        `per node ${perNode.map((p) => `${p.node}: ${p.seconds?.toFixed(0) ?? '?'} s`).join(', ')}; ` +
        `${sent} acks=all sends, ${failures.length} failed; ${polls} availability polls, unavailable: ${unavailable.length}`,
    );
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(100);
    expect(unavailable).toEqual([]);
    expect(polls).toBeGreaterThan(10);

    const pidsAfter = new Map((await sandbox.status()).filter((s) => NODES.includes(s.id)).map((s) => [s.id, s.pid]));
    for (const id of NODES) {
      expect(pidsAfter.get(id), `${nameOf(id)} runs`).not.toBeNull();
      expect(pidsAfter.get(id), `${nameOf(id)} has a new pid`).not.toBe(pidsBefore.get(id));
      const written = await readSince(join(nodeLayout(settings, id).logsDir, 'server.log'), marks.get(id)!);
      expect(written, `${nameOf(id)} started again`).toMatch(/Kafka Server started|Transition from STARTING to STARTED|\[KafkaServer id=\d+\] started/);
      expect(written.split('\n').filter((l) => UNCLEAN_RECOVERY.test(l)), `${nameOf(id)} recovered no log dir uncleanly`).toEqual([]);
    }
    if (CONTROLLERS.length) {
      // Controllers first, one at a time, the active one last; every broker after them.
      const checks = perNode.map((p) => p.check ?? Number.NaN);
      expect(perNode.every((p) => p.seconds !== null), perNode.map((p) => `${p.node} ${p.seconds}`).join(', ')).toBe(true);
      expect(checks.every((at, i) => i === 0 || at > checks[i - 1]!), perNode.map((p) => `${p.node} ${p.check}`).join(', ')).toBe(true);
      expect(order.slice(0, CONTROLLERS.length).sort()).toEqual([...CONTROLLERS].sort());
      expect(order[CONTROLLERS.length - 1], 'the active controller restarted last of the controllers').toBe(leaderBefore);
      const q = (await takeSnapshot(connection, { topics: [TOPIC], timeoutMs: 20_000 })).quorum!;
      expect(q.status).toBe('ok');
      expect(quorumHealth(q)!.inSync.sort()).toEqual([...CONTROLLERS].sort());
    }

    // The plan showed the order and, per broker, the verdict, the last shutdown and the offsets partitions it leads.
    const planText = JSON.stringify(plan.blocks);
    expect(planText).toMatch(/Restart order/);
    expect(planText).toMatch(/can-restart: yes/);
    expect(planText).toMatch(/last controlled shutdown/);
    expect(planText).toMatch(/__consumer_offsets/);
    if (CONTROLLERS.length) expect(planText).toMatch(new RegExp(`controller ${leaderBefore}: can-restart: yes · the active controller`));
  }, 1_600_000);

  it('a graceful stop that outlasts its bound pauses the run (nothing killed); Cancel leaves it to finish, then the sweep starts it', async () => {
    const broker = 1;
    const host = nodeLayout(settings, broker).hostDir;
    const pid = (await sandbox.status()).find((s) => s.id === broker)!.pid!;
    // The sandbox's slow controlled shutdown: the stop takes effect 2.5 bounds later.
    const delaySeconds = Math.round(STOP_BOUND_SECONDS * 2.5);
    await writeFile(join(host, SLOW_STOP_FILE), String(delaySeconds));
    try {
      const before = stub.topLevel(CHANNEL).length;
      await post('/slack/events', slashBody({ text: `restart ${broker}`, user: REQUESTER, channel: CHANNEL, responseUrl: stub.responseUrl(`slash-${++seq}`) }));
      const plan = await waitFor('the plan message', () => stub.topLevel(CHANNEL).slice(before).find((m) => m.text.startsWith('REQUESTED: ')), 120_000);
      const id = requestIdOf(plan);
      await click('ops:approve', id, ALICE, plan);
      await click('ops:approve', id, BOB, plan);
      // Past the bound the run needs a human: paused, with Resume, Cancel and Leave stopped; the broker is still stopping.
      const paused = await waitFor('the pause in the thread', () => stub.thread(plan.ts).find((m) => /^Paused: .*still stopping after \d+ s \(bound 12 s/.test(m.text)), 120_000, 500);
      const choices = (paused.blocks as { elements?: { action_id: string }[] }[]).flatMap((b) => b.elements ?? []).map((e) => e.action_id);
      expect(choices).toEqual(['ops:resume', 'ops:stop', 'ops:leave-stopped']);
      expect(isAlive(pid)).toBe(true);
      await click('ops:stop', id, ALICE, paused);
      const finished = await threadOutcome(stub, plan.ts, 60_000, 500);
      expect(finished.status, finished.summary).toBe('CANCELLED');
      expect(finished.summary).toMatch(/broker 1 is still stopping \(pid \d+\): it is started once its process has exited/);
      expect(isAlive(pid)).toBe(true);
      // It finishes its shutdown by itself, cleanly (the marker is written only by a completed shutdown).
      await waitFor('the slow broker to exit by itself', () => !isAlive(pid), delaySeconds * 1000 + 60_000, 500);
      expect(existsSync(join(host, 'data', 'kafka-logs', '.kafka_cleanshutdown'))).toBe(true);
      // Then the sweep's cleanup starts it: a new process, and the thread says so.
      await waitFor('the cleanup in the thread', () => stub.thread(plan.ts).some((m) => /Cleanup finished: broker 1 started again/.test(m.text)), 120_000, 500);
      const now = (await sandbox.status()).find((s) => s.id === broker)!.pid;
      expect(now).not.toBeNull();
      expect(now).not.toBe(pid);
    } finally {
      await rm(join(host, SLOW_STOP_FILE), { force: true });
    }
    await sandbox.start(broker).catch(() => undefined);
  }, 400_000);
});
