// Operations on the real sandbox (Kafka, KRaft), over the Kafka protocol only:
// a plan is approved by two people (approvals on dynalite), then run tick by
// tick the way worker invocations run it (each tick with a short budget, so
// long steps park and resume), with Kafka's own CLI tools as the oracle.
// The cluster is configured with no host access (hosts.executor "none", as
// on Amazon MSK): nothing here may need a shell on a broker.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalService } from '../../lib/approvals/index.ts';
import { parseConfig, type ClusterConfig } from '../../lib/config/schema.ts';
import { createDefaultOperations } from '../../lib/operations/backend.ts';
import { leaderOverrideLossLines } from '../../lib/operations/kinds/leader-override/loss-text.ts';
import { runTick, type TickResult } from '../../lib/operations/runner.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { openAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import { Sandbox } from '../../sandbox/cluster.ts';
import { createTopic, produce, withAdmin } from '../../sandbox/client.ts';
import { binDir, bootstrapServers, sandboxSettings } from '../../sandbox/layout.ts';
import { runScenario } from '../../sandbox/scenarios.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { approvalsOn, approvedByTwo } from '../approvals/two-approvers.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { refusalText } from '../../lib/operations/render-text.ts';

const up = hasSandbox();
const settings = sandboxSettings();
const bootstrap = bootstrapServers(settings);
const bin = binDir(settings);

const config = parseConfig({
  clusters: [{ name: 'sandbox', bootstrap: bootstrap.split(','), hosts: { executor: 'none' }, diagnosisTimeoutMs: 30_000 }],
  slack: { allowEveryone: true, incidentChannel: 'C0INCIDENT' },
  approvals: { approvers: ['UALICE', 'UBOB'] },
});
const cluster = config.clusters[0] as ClusterConfig;
const operations = createDefaultOperations(async () => null);
const io = operations.io(cluster);

function kafkaCli(tool: string, args: string[]): string {
  return execFileSync(`${bin}/${tool}`, ['--bootstrap-server', bootstrap, ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** Every throttle config Kafka reports on brokers 1-3 and these topics (kafka-configs.sh --describe). */
function throttlesLeft(topics: string[]): string[] {
  const out: string[] = [];
  for (const b of ['1', '2', '3']) {
    const text = kafkaCli('kafka-configs.sh', ['--describe', '--entity-type', 'brokers', '--entity-name', b]);
    out.push(...text.split('\n').filter((l) => /throttled/.test(l)).map((l) => `broker ${b}: ${l.trim()}`));
  }
  for (const t of topics) {
    const text = kafkaCli('kafka-configs.sh', ['--describe', '--entity-type', 'topics', '--entity-name', t]);
    out.push(...text.split('\n').filter((l) => /throttled/.test(l)).map((l) => `topic ${t}: ${l.trim()}`));
  }
  return out;
}

let dynamo: LocalDynamo;
let approvals: ApprovalService<Plan>;
let sandbox: Sandbox;

beforeAll(async () => {
  if (!up) return;
  sandbox = new Sandbox(settings, () => {});
  dynamo = await startLocalDynamo();
  ({ approvals } = await approvalsOn(dynamo.client, 'approvals-ops-int', 3_600_000));
});
afterAll(async () => {
  await dynamo?.close();
});

const approve = (plan: Plan) => approvedByTwo(approvals, plan, 'sandbox', 'UOPERATOR');

/** Ticks as worker invocations would, each with `budgetMs`, until the run ends (or `stopWhen` says so). */
async function runToEnd(id: string, budgetMs: number, stopWhen?: (r: TickResult, ticks: number) => boolean): Promise<{ result: TickResult; ticks: number; progress: string[] }> {
  const progress: string[] = [];
  let ticks = 0;
  for (;;) {
    ticks++;
    const result = await runTick({
      approvals,
      io,
      requestId: id,
      workerId: `tick-${ticks}`,
      deadline: Date.now() + budgetMs,
      pollMs: 1_000,
      scheduleNext: async () => {},
      report: { step: async () => {}, progress: async (t) => void progress.push(t), finished: async () => {} },
    });
    if (result.kind !== 'parked' || stopWhen?.(result, ticks)) return { result, ticks, progress };
    if (ticks > 400) throw new Error('the run did not end');
  }
}

describe.skipIf(!up)('operations over the Kafka protocol on the sandbox, no host access', () => {
  it('leaderless partition with its last in-sync replica wiped: the plan says the loss is unknown; broker 3 leads with its 700 messages', async () => {
    const sc = await runScenario(sandbox, 'isr-one-leader-lost');
    const perReplica = sc.expect.messagesPerReplica!;
    const planned = await operations.plan(cluster, { kind: 'leader-override', topic: 'orders', partition: 0, replica: 3 });
    if (!planned.ok) throw new Error(refusalText(planned.refusal));
    const plan = planned.plan;
    // Without hosts nothing measures offsets: sizes in bytes, and broker 1 (wiped, the last in-sync one) is unseen.
    expect(plan.impact.loss?.known).toBe(false);
    expect(plan.impact.estimatedMessagesLost).toBeNull();
    const lines = leaderOverrideLossLines(plan);
    expect(lines[0]).toMatch(/^Loss: unknown/);
    expect(lines.join('\n')).not.toMatch(/\b0 (messages )?lost/);
    expect(plan.steps.map((s) => s.action)).toEqual(['reassign', 'elect-leaders', 'verify-leaders', 'verify-writable', 'wait-reassignment']);

    const id = await approve(plan);
    const t0 = Date.now();
    const { result } = await runToEnd(id, 30_000);
    expect(result, JSON.stringify(result)).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    console.log(`[no-host leader override] second approval → run finished: ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    expect(kafkaCli('kafka-topics.sh', ['--describe', '--topic', 'orders'])).toMatch(/Partition: 0\s+Leader: 3\s/);
    expect(kafkaCli('kafka-get-offsets.sh', ['--topic', 'orders', '--partitions', '0']).trim()).toBe(`orders:0:${perReplica['3']}`);
    await produce(bootstrap, 'orders', 0, 1, -1, 10_000_000);
    expect(kafkaCli('kafka-get-offsets.sh', ['--topic', 'orders', '--partitions', '0']).trim()).toBe(`orders:0:${perReplica['3']! + 1}`);
  }, 600_000);

  it('a group committed beyond the chosen replica\'s end is committed at the new end by the plan, read back with kafka-consumer-groups.sh', async () => {
    await runScenario(sandbox, 'healthy');
    const topic = 'ops-int-stranded';
    const group = 'stranded-readers';
    await withAdmin(bootstrap, async (admin) => {
      if ((await admin.listTopics()).includes(topic)) await admin.deleteTopics({ topics: [topic] });
      await createTopic(admin, topic, { assignment: [[1, 2]], configs: { 'min.insync.replicas': '1' } });
    });
    try {
      await produce(bootstrap, topic, 0, 1_000, -1);
      // Broker 2 falls behind (stopped), broker 1 alone takes 500 more, a consumer reads up to 1,400, then broker 1 dies.
      await sandbox.stop(2);
      await produce(bootstrap, topic, 0, 500, -1, 1_000);
      const admin = await io.openAdmin();
      try {
        // The group's coordinator may have lived on the broker just stopped: it moves within seconds.
        let committed = false;
        for (let i = 0; i < 60 && !committed; i++) {
          const [r] = await admin.commitOffsets(group, [{ topic, partition: 0, offset: 1_400 }]).catch(() => []);
          committed = r?.errorCode === 0;
          if (!committed) await new Promise((done) => setTimeout(done, 1_000));
        }
        expect(committed).toBe(true);
      } finally {
        await admin.close();
      }
      await sandbox.kill(1);
      await sandbox.start(2);
      // The controller notices the dead broker after its session times out.
      for (let i = 0; i < 120; i++) {
        const p = (await io.snapshot([topic])).topics[0]?.partitions[0];
        if (p && p.leader < 0) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const planned = await operations.plan(cluster, { kind: 'leader-override', topic, partition: 0, replica: 2 });
      if (!planned.ok) throw new Error(refusalText(planned.refusal));
      const commit = planned.plan.steps.find((st) => st.action === 'commit-offsets');
      expect(commit?.action === 'commit-offsets' ? commit.groups : []).toEqual([group]);
      expect(planned.plan.impact.loss?.known).toBe(false);
      const { result } = await runToEnd(await approve(planned.plan), 30_000);
      expect(result, JSON.stringify(result)).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
      // Kafka's own tool: the group sits at broker 2's end (1,000), not beyond it.
      const described = kafkaCli('kafka-consumer-groups.sh', ['--describe', '--group', group]);
      expect(described).toMatch(new RegExp(`${topic}\\s+0\\s+1000\\s+1000\\s+0\\s`));
    } finally {
      await sandbox.start(1);
      await sandbox.start(2);
      await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [topic] })).catch(() => undefined);
    }
  }, 600_000);

  it('raise-rf that copies across many short invocations: no partition unavailable, throttles gone, then a cancelled one leaves no reassignment and no throttle', async () => {
    await runScenario(sandbox, 'healthy');
    const topic = 'ops-int-raise';
    const slow = 'ops-int-cancel';
    await withAdmin(bootstrap, async (admin) => {
      const existing = await admin.listTopics();
      const stale = [topic, slow].filter((t) => existing.includes(t));
      if (stale.length) await admin.deleteTopics({ topics: stale });
      await createTopic(admin, topic, { assignment: [[1], [2]] });
      await createTopic(admin, slow, { assignment: [[1], [2]] });
    });
    // ~3 MiB per partition; a 256 KiB/s throttle makes the copy take several seconds.
    for (const t of [topic, slow]) for (let p = 0; p < 2; p++) await produce(bootstrap, t, p, 3_000, 1, 0, 1_000);
    // An operator's own throttle on broker 3 must survive both runs.
    kafkaCli('kafka-configs.sh', ['--alter', '--entity-type', 'brokers', '--entity-name', '3', '--add-config', 'leader.replication.throttled.rate=987654321']);
    try {
      const raise = await operations.plan({ ...cluster, operations: { throttleBytesPerSec: 256 * 1024 } }, { kind: 'raise-replication-factor', topic, replicationFactor: 3 });
      if (!raise.ok) throw new Error(refusalText(raise.refusal));
      const id = await approve(raise.plan);
      let unavailable = 0;
      let polls = 0;
      const poller = setInterval(() => {
        void io.snapshot([topic]).then((s) => {
          polls++;
          unavailable += s.topics.find((t) => t.name === topic)?.partitions.filter((p) => p.leader < 0).length ?? 0;
        });
      }, 500);
      const t0 = Date.now();
      let done;
      try {
        // 6-second invocations: the copy outlives several of them.
        done = await runToEnd(id, 6_500);
      } finally {
        clearInterval(poller);
      }
      expect(done.result, JSON.stringify(done.result)).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
      console.log(`[raise-rf] ${done.ticks} invocations over ${((Date.now() - t0) / 1000).toFixed(1)} s; progress: ${done.progress.at(-1) ?? '-'}; unavailable partitions seen in ${polls} polls: ${unavailable}`);
      expect(done.ticks).toBeGreaterThan(1);
      expect(unavailable).toBe(0);
      expect((await approvals.get(id))!.run?.invocations).toBe(done.ticks);
      const described = kafkaCli('kafka-topics.sh', ['--describe', '--topic', topic]);
      expect(described.match(/Replicas: \d,\d,\d/g)).toHaveLength(2);
      expect(throttlesLeft([topic])).toEqual(['broker 3: leader.replication.throttled.rate=987654321 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:leader.replication.throttled.rate=987654321}']);

      // Cancel: a slow copy (4 KiB/s) is stopped by an approver while it runs.
      const cancel = await operations.plan({ ...cluster, operations: { throttleBytesPerSec: 4 * 1024 } }, { kind: 'raise-replication-factor', topic: slow, replicationFactor: 2 });
      if (!cancel.ok) throw new Error(refusalText(cancel.refusal));
      const cid = await approve(cancel.plan);
      const parked = await runToEnd(cid, 6_500, (_r, ticks) => ticks >= 2);
      expect(parked.result.kind).toBe('parked');
      const admin = await io.openAdmin();
      try {
        expect((await admin.listPartitionReassignments(null)).length).toBeGreaterThan(0);
      } finally {
        await admin.close();
      }
      expect(throttlesLeft([slow]).length).toBeGreaterThan(1);
      expect((await approvals.requestCancel(cid, 'UBOB', 'too slow')).ok).toBe(true);
      const cancelled = await runToEnd(cid, 30_000);
      expect(cancelled.result, JSON.stringify(cancelled.result)).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
      expect(kafkaCli('kafka-reassign-partitions.sh', ['--list'])).not.toMatch(new RegExp(`${slow}-\\d`));
      expect(throttlesLeft([slow])).toEqual(['broker 3: leader.replication.throttled.rate=987654321 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:leader.replication.throttled.rate=987654321}']);
      // CANCELLED is reported once the metadata shows the original replicas again.
      const afterCancel = kafkaCli('kafka-topics.sh', ['--describe', '--topic', slow]);
      expect(afterCancel.match(/Replicas: \d\t/g) ?? [], afterCancel).toHaveLength(2);
    } finally {
      kafkaCli('kafka-configs.sh', ['--alter', '--entity-type', 'brokers', '--entity-name', '3', '--delete-config', 'leader.replication.throttled.rate']);
      await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [topic, slow] }));
    }
  }, 900_000);

  it('a broker that dies mid-copy: the run says so and waits (never FAILED), then finishes once it is back, throttles removed', async () => {
    await runScenario(sandbox, 'healthy');
    const topic = `ops-int-broker-dies-${Date.now()}`;
    await withAdmin(bootstrap, (admin) => createTopic(admin, topic, { assignment: [[1], [1]] }));
    try {
      for (let p = 0; p < 2; p++) await produce(bootstrap, topic, p, 2_000, 1, 0, 1_000);
      const planned = await operations.plan({ ...cluster, operations: { throttleBytesPerSec: 8 * 1024 } }, { kind: 'raise-replication-factor', topic, replicationFactor: 2 });
      if (!planned.ok) throw new Error(refusalText(planned.refusal));
      const step = planned.plan.steps[0]!;
      const receiving = [...new Set(step.action === 'reassign' ? step.partitions.flatMap((p) => p.replicas.filter((r) => r !== 1)) : [])];
      expect(receiving.length).toBeGreaterThan(0);
      const id = await approve(planned.plan);
      expect((await runToEnd(id, 6_500, (_r, ticks) => ticks >= 1)).result.kind).toBe('parked');
      for (const b of receiving) await sandbox.stop(b);
      const waiting = await runToEnd(id, 6_500, (_r, ticks) => ticks >= 2);
      expect(waiting.result.kind).toBe('parked');
      expect(waiting.progress.at(-1)).toMatch(new RegExp(`broker ${receiving.join(', ')} is down: its partitions cannot finish until it is back`));
      expect((await approvals.get(id))!.status).toBe('EXECUTING');
      for (const b of receiving) await sandbox.start(b);
      const done = await runToEnd(id, 30_000);
      expect(done.result, JSON.stringify(done.result)).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
      expect(throttlesLeft([topic])).toEqual([]);
    } finally {
      for (const b of [2, 3]) await sandbox.start(b);
      await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [topic] })).catch(() => undefined);
    }
  }, 600_000);

  it('a STALE plan runs nothing', async () => {
    const topic = 'ops-int-stale';
    await withAdmin(bootstrap, async (admin) => {
      if ((await admin.listTopics()).includes(topic)) await admin.deleteTopics({ topics: [topic] });
      await createTopic(admin, topic, { assignment: [[1], [2]] });
    });
    try {
      const planned = await operations.plan(cluster, { kind: 'raise-replication-factor', topic, replicationFactor: 2 });
      if (!planned.ok) throw new Error(refusalText(planned.refusal));
      const id = await approve(planned.plan);
      // Someone else changes the topic between the plan and the run.
      const admin = await openAdmin(parseConnectionConfig({ bootstrap: bootstrap.split(',') }), { timeoutMs: 20_000 });
      try {
        await admin.alterPartitionReassignments([{ topic, partition: 0, replicas: [3] }]);
        for (let i = 0; i < 60 && (await admin.listPartitionReassignments(null)).length > 0; i++) await new Promise((r) => setTimeout(r, 500));
      } finally {
        await admin.close();
      }
      const { result } = await runToEnd(id, 30_000);
      expect(result).toMatchObject({ kind: 'finished', status: 'STALE' });
      expect(kafkaCli('kafka-topics.sh', ['--describe', '--topic', topic])).toMatch(/Partition: 1\s+Leader: 2\s+Replicas: 2\s/);
      expect(throttlesLeft([topic])).toEqual([]);
    } finally {
      await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [topic] }));
    }
  }, 300_000);
});
