// End to end on the real sandbox (Kafka 4.1.1, KRaft): a plan is requested,
// approved by two people (approvals on dynalite), claimed, executed live
// through the host executor, each step audited before the next.
// Needs the sandbox from test/global-setup.ts (skipped with KR_SKIP_SANDBOX=1).
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalPolicyConfigSchema, ApprovalService, ApprovalStore, resolvePolicy } from '../../lib/approvals/index.ts';
import { LocalExecutor } from '../../lib/hosts/local-executor.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import {
  measureReplicas,
  planDrain,
  planLeaderOverride,
  planRaiseReplicationFactor,
  runApprovedPlan,
  runKafkaCli,
  type ExecutionOutcome,
  type OperationHost,
  type Plan,
} from '../../lib/operations/index.ts';
import { createTopic, produce, withAdmin } from '../../sandbox/client.ts';
import { nodeLayout, sandboxSettings } from '../../sandbox/layout.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';

const bootstrap = process.env.KAFKA_BOOTSTRAP_SERVERS ?? '';
const kafkaBin = process.env.KAFKA_BIN ?? '';
const haveSandbox = bootstrap !== '' && kafkaBin !== '' && process.env.KR_SKIP_SANDBOX !== '1';
const executor = new LocalExecutor({ concurrency: 2 });

function hostOf(brokerId: number): OperationHost {
  return { executor, target: { brokerId, address: nodeLayout(sandboxSettings(), brokerId).hostDir }, kafkaBin, bootstrap };
}

function scenario(name: string): { expect: Record<string, unknown> } {
  const r = spawnSync('npx', ['kafka-responder', 'sandbox', 'scenario', name], { encoding: 'utf8', env: process.env, timeout: 480_000 });
  if (r.status !== 0) throw new Error(`scenario ${name} failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout);
}

function snapshot(topics: string[]) {
  return takeSnapshot(parseConnectionConfig({ bootstrap: bootstrap.split(',') }), { topics, timeoutMs: 20_000 });
}

let dynamo: LocalDynamo;
let approvals: ApprovalService<Plan>;

beforeAll(async () => {
  if (!haveSandbox) return;
  dynamo = await startLocalDynamo();
  const store = new ApprovalStore(dynamo.client, { tableName: 'approvals-e2e' });
  await store.ensureTable();
  approvals = new ApprovalService<Plan>({
    store,
    policy: resolvePolicy(ApprovalPolicyConfigSchema.parse({ approverUserIds: ['UALICE', 'UBOB'] })),
  });
});
afterAll(async () => {
  await dynamo?.close();
});

/** Request → two approvals → claim → live execution with every step audited → finish. */
async function approveAndRun(plan: Plan, host: OperationHost, readTopics: string[]): Promise<{ outcome: ExecutionOutcome; audit: string[] }> {
  const requested = await approvals.request(plan, 'UOPERATOR');
  if (!requested.ok) throw new Error(requested.message);
  const id = requested.request.id;
  expect((await approvals.approve(id, 'UALICE')).ok).toBe(true);
  const second = await approvals.approve(id, 'UBOB');
  expect(second.ok && second.readyToExecute).toBe(true);
  const run = await runApprovedPlan({
    approvals,
    requestId: id,
    workerId: 'worker-e2e',
    deps: { readSnapshot: () => snapshot(readTopics), host },
    options: { pollIntervalMs: 1_000, reassignmentTimeoutMs: 180_000 },
  });
  if (!run.ran) throw new Error(run.refusal.message);
  expect(run.finish.ok).toBe(true);
  // A second worker handed the same job runs nothing.
  expect(await runApprovedPlan({ approvals, requestId: id, workerId: 'worker-2', deps: { readSnapshot: () => snapshot(readTopics), host } })).toMatchObject({
    ran: false,
    refusal: { code: 'already-executed' },
  });
  const stored = await approvals.get(id);
  return { outcome: run.outcome, audit: (stored?.events ?? []).map((e) => `${e.type}: ${e.message}`) };
}

describe.skipIf(!haveSandbox)('operations on the sandbox', () => {
  it('isr-one-leader-lost: the out-of-ISR replica with the most data leads, keeping more than the default choice', async () => {
    const sc = scenario('isr-one-leader-lost');
    const perReplica = sc.expect.messagesPerReplica as Record<string, number>;
    expect(sc.expect.defaultUncleanLeader).toBe(2);

    const before = await snapshot(['orders']);
    const p0 = before.topics.find((t) => t.name === 'orders')!.partitions[0]!;
    expect(p0.leader).toBe(-1);
    const replicaData = await measureReplicas(
      executor,
      [1, 2, 3].map((id) => ({ target: hostOf(id).target, logDirs: [nodeLayout(sandboxSettings(), id).dataDir], kafkaBin })),
      'orders',
      0,
    );
    const leo = Object.fromEntries(replicaData.map((d) => [d.brokerId, d.logEndOffset]));
    expect(leo[2]).toBe(perReplica['2']);
    expect(leo[3]).toBe(perReplica['3']);

    const planned = planLeaderOverride(before, { topic: 'orders', partition: 0 }, replicaData);
    if (!planned.ok) throw new Error(planned.reason);
    const plan = planned.plan;
    expect(plan.params.replica).toBe(3);
    const candidates = Object.fromEntries(plan.impact.candidates!.map((c) => [c.brokerId, c]));
    expect(candidates[2]).toMatchObject({ defaultChoice: true, estimatedMessagesLost: perReplica['3']! - perReplica['2']! });

    const { outcome, audit } = await approveAndRun(plan, hostOf(2), ['orders']);
    expect(outcome.status, outcome.summary).toBe('SUCCEEDED');
    expect(audit.map((a) => a.split(':')[0])).toEqual(['requested', 'approved', 'approved', 'claimed', 'step', 'step', 'step', 'step', 'step', 'succeeded']);

    // Broker 3 leads, in the ISR, and the partition takes writes again.
    const after = await snapshot(['orders']);
    const p = after.topics.find((t) => t.name === 'orders')!.partitions[0]!;
    expect(p.leader).toBe(3);
    expect(p.isr).toContain(3);
    await produce(bootstrap, 'orders', 0, 1, -1, 10_000_000);
    // Kept: everything broker 3 held, not the fewer messages of the default choice (broker 2).
    const kept = await measureReplicas(executor, [{ target: hostOf(3).target, logDirs: [nodeLayout(sandboxSettings(), 3).dataDir], kafkaBin }], 'orders', 0);
    expect(kept[0]!.logEndOffset).toBe(perReplica['3']! + 1);
    expect(perReplica['3']!).toBeGreaterThan(perReplica['2']!);
    console.log(`[leader override] kept ${perReplica['3']} messages on broker 3 (default choice broker 2 would keep ${perReplica['2']}); steps:\n  ${audit.join('\n  ')}`);
  }, 600_000);

  it('rf1 with a planned stop: partial drain of broker 3 → stop → no offline partition', async () => {
    scenario('healthy');
    const topic = 'ops-drain-rf1';
    const everywhere = 'ops-drain-rf3';
    await withAdmin(bootstrap, async (admin) => {
      const existing = await admin.listTopics();
      const stale = [topic, everywhere].filter((t) => existing.includes(t));
      if (stale.length) await admin.deleteTopics({ topics: stale });
      await createTopic(admin, topic, { assignment: [[1], [2], [3], [3]] });
      await createTopic(admin, everywhere, { assignment: [[1, 2, 3]] });
    });
    for (let p = 0; p < 4; p++) await produce(bootstrap, topic, p, 50);

    const before = await snapshot([topic, everywhere]);
    // RF 3 on a 3-broker cluster cannot move: a full drain is refused...
    expect(planDrain(before, { broker: 3 })).toMatchObject({ ok: false });
    // ...and the partial one moves the rest.
    const planned = planDrain(before, { broker: 3, partial: true }, { throttleBytesPerSec: 10 * 1024 * 1024 });
    if (!planned.ok) throw new Error(planned.reason);
    const moved = planned.plan.steps[0]!;
    expect(moved.action === 'reassign' && moved.input.partitions.filter((m) => m.topic === topic).map((m) => m.partition)).toEqual([2, 3]);
    expect(moved.action === 'reassign' && moved.input.partitions.some((m) => m.topic === everywhere)).toBe(false);

    const { outcome, audit } = await approveAndRun(planned.plan, hostOf(1), [topic, everywhere]);
    expect(outcome.status, outcome.summary).toBe('SUCCEEDED');
    console.log(`[drain] ${audit.join('\n  ')}`);

    const stop = spawnSync('npx', ['kafka-responder', 'sandbox', 'stop', '3'], { encoding: 'utf8', env: process.env });
    expect(stop.status).toBe(0);
    try {
      const described = await runKafkaCli(hostOf(1), { action: 'describe', topics: [topic] });
      const { parseTopicDescribe } = await import('../../sandbox/client.ts');
      const parts = parseTopicDescribe(described.output);
      expect(parts).toHaveLength(4);
      for (const part of parts) expect(part.leader, `${topic}-${part.partition}`).toBeGreaterThanOrEqual(0);
      const unavailable = spawnSync(`${kafkaBin}/kafka-topics.sh`, ['--bootstrap-server', bootstrap, '--describe', '--unavailable-partitions'], { encoding: 'utf8' });
      expect(unavailable.stdout.trim()).toBe('');
      await produce(bootstrap, topic, 2, 1);
    } finally {
      spawnSync('npx', ['kafka-responder', 'sandbox', 'start', '3'], { encoding: 'utf8', env: process.env });
      await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [topic, everywhere] }));
    }
  }, 600_000);

  it('raise-rf: a replication factor 1 topic goes to 3, throttled, throttles removed', async () => {
    const topic = 'ops-raise-rf';
    await withAdmin(bootstrap, async (admin) => {
      if ((await admin.listTopics()).includes(topic)) await admin.deleteTopics({ topics: [topic] });
      await createTopic(admin, topic, { assignment: [[1], [2]] });
    });
    for (let p = 0; p < 2; p++) await produce(bootstrap, topic, p, 100);
    try {
      const planned = planRaiseReplicationFactor(await snapshot([topic]), { topic, replicationFactor: '3' }, { throttleBytesPerSec: 10 * 1024 * 1024 });
      if (!planned.ok) throw new Error(planned.reason);
      const { outcome } = await approveAndRun(planned.plan, hostOf(1), [topic]);
      expect(outcome.status, outcome.summary).toBe('SUCCEEDED');
      const after = (await snapshot([topic])).topics.find((t) => t.name === topic)!;
      for (const p of after.partitions) {
        expect(new Set(p.replicas).size).toBe(3);
        expect(p.replicas[0]).toBe(p.partition + 1);
      }
      // --verify removed the throttle configs it had set.
      const configs = spawnSync(`${kafkaBin}/kafka-configs.sh`, ['--bootstrap-server', bootstrap, '--describe', '--entity-type', 'topics', '--entity-name', topic], { encoding: 'utf8' });
      expect(configs.stdout).not.toMatch(/throttled/);
      for (const broker of ['1', '2', '3']) {
        const b = spawnSync(`${kafkaBin}/kafka-configs.sh`, ['--bootstrap-server', bootstrap, '--describe', '--entity-type', 'brokers', '--entity-name', broker], { encoding: 'utf8' });
        expect(b.stdout).not.toMatch(/replication\.throttled\.rate/);
      }
    } finally {
      await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [topic] }));
    }
  }, 300_000);
});
