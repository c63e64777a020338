// Approvals and operation planners: how fast, how many DynamoDB calls, how big.
//
//   npx tsx bench/approvals.ts [rounds]        (default 5 rounds of the click storm)
//
// 1. decide(): pure state-machine throughput (request → 2 approvals → claim → 5 steps → finish).
// 2. Click storm on dynalite (local, in-memory, over HTTP): per round, 50
//    concurrent approve clicks from 7 users (5 approvers, the requester, one
//    outsider), each followed by a claim as a racing worker would; prints wall
//    time, approve latency p50/p99, DynamoDB calls and conditional-check
//    failures per round, and executions (must be exactly 1 per round).
// 3. Planners on a synthetic 200k-partition, 12-broker cluster: planDrain,
//    planLeaderOverride, the executor's fingerprint recomputation, and the
//    stored size of a drain plan (DynamoDB items stop at 400 KB).

import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import {
  ApprovalPolicyConfigSchema,
  ApprovalService,
  ApprovalStore,
  createRequest,
  decide,
  resolvePolicy,
  type ApprovalRequest,
} from '../lib/approvals/index.ts';
import type { ClusterSnapshot, TopicState } from '../lib/kafka/types.ts';
import { digestOf, planDrain, planLeaderOverride, preconditionsFor } from '../lib/operations/index.ts';
import { startLocalDynamo } from '../test/approvals/local-dynamodb.ts';
import { refusalText } from '../lib/operations/render-text.ts';

const rounds = Number(process.argv[2] ?? 5);
const approvers = ['UA1', 'UA2', 'UA3', 'UA4', 'UA5'];
const policy = resolvePolicy(ApprovalPolicyConfigSchema.parse({ approverUserIds: approvers }));
const plan = { id: 'p', kind: 'drain-broker', title: 'drain broker 2', fingerprint: 'f'.repeat(64) };

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
const ms = (n: number) => `${n.toFixed(1)} ms`;

// ---------------------------------------------------------------- 1. decide()
{
  const n = 20_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const created = createRequest({ id: `r${i}`, plan, requester: 'UOUT' }, policy, 0);
    if (!created.ok) throw new Error('refused');
    let r: ApprovalRequest = created.request;
    const step = (a: Parameters<typeof decide>[1]) => {
      const d = decide(r, a, policy, 1000);
      if (!d.ok) throw new Error(d.refusal.message);
      r = d.request;
    };
    step({ type: 'approve', user: 'UA1' });
    step({ type: 'approve', user: 'UA2' });
    step({ type: 'claim', workerId: 'w', leaseMs: 60_000 });
    for (let s = 0; s < 5; s++) step({ type: 'step', workerId: 'w', leaseMs: 60_000, step: { index: s, name: 'x', status: 'ok' } });
    step({ type: 'finish', workerId: 'w', outcome: 'SUCCEEDED', summary: 'done' });
  }
  const el = performance.now() - t0;
  console.log(`decide(): ${n} full lifecycles (10 transitions each) in ${ms(el)} → ${Math.round((n * 10) / (el / 1000)).toLocaleString('en')} transitions/s`);
}

// ---------------------------------------------------------------- 2. click storm on dynalite
{
  const dynamo = await startLocalDynamo();
  let calls = 0;
  let conditionalFailures = 0;
  dynamo.client.middlewareStack.add(
    (next) => async (args) => {
      calls++;
      try {
        return await next(args);
      } catch (err) {
        if ((err as { name?: string }).name === 'ConditionalCheckFailedException') conditionalFailures++;
        throw err;
      }
    },
    { step: 'initialize', name: 'countCalls' },
  );
  const store = new ApprovalStore(dynamo.client, { tableName: 'bench' });
  await store.ensureTable();
  const service = new ApprovalService({ store, policy });
  const clickers = [...approvers, 'UOUT', 'UMALLORY'];
  console.log(`\nclick storm: 50 concurrent approve clicks + 50 racing claims per round, dynalite on loopback`);
  for (let round = 1; round <= rounds; round++) {
    const created = await service.request(plan, 'UOUT');
    if (!created.ok) throw new Error(created.message);
    const id = created.request.id;
    calls = 0;
    conditionalFailures = 0;
    const latencies: number[] = [];
    let executions = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const a0 = performance.now();
        await service.approve(id, clickers[i % clickers.length]!, `1700000000.${String(i).padStart(6, '0')}`);
        latencies.push(performance.now() - a0);
        const claim = await service.claimForExecution(id, `w${i}`);
        if (claim.ok) executions++;
      }),
    );
    const wall = performance.now() - t0;
    latencies.sort((a, b) => a - b);
    console.log(
      `  round ${round}: ${ms(wall)} wall, approve p50 ${ms(pct(latencies, 50))} p99 ${ms(pct(latencies, 99))}, ` +
        `${calls} DynamoDB calls (${conditionalFailures} conditional-check failures), executions: ${executions}`,
    );
    if (executions !== 1) throw new Error(`round ${round}: ${executions} executions`);
  }
  await dynamo.close();
}

// ---------------------------------------------------------------- 3. planners on 200k partitions
{
  const brokers = 12;
  const partitions = 200_000;
  const topics: TopicState[] = [];
  let made = 0;
  for (let t = 0; made < partitions; t++) {
    const parts = [];
    for (let p = 0; p < 100 && made < partitions; p++, made++) {
      const r0 = (t * 7 + p) % brokers;
      const replicas = [r0 + 1, ((r0 + 1) % brokers) + 1, ((r0 + 2) % brokers) + 1];
      parts.push({ partition: p, leader: replicas[0]!, replicas, isr: replicas, offlineReplicas: [] });
    }
    topics.push({ name: `topic-${t}`, internal: false, config: null, partitions: parts });
  }
  // One leaderless partition for the override.
  const victim = topics[5]!.partitions[3]!;
  victim.leader = -1;
  victim.isr = [victim.replicas[0]!];
  const live = Array.from({ length: brokers }, (_, i) => i + 1).filter((b) => b !== victim.replicas[0]);
  const snapshot: ClusterSnapshot = {
    takenAt: new Date().toISOString(),
    clusterId: 'bench',
    controllerId: 1,
    brokers: live.map((id) => ({ id, host: 'h', port: 9092 })),
    topics,
    groups: [],
    offsetsTopicPartitions: 50,
    unreachableBrokers: [],
    errors: [],
    partial: false,
  };
  console.log(`\nplanners on ${partitions.toLocaleString('en')} partitions, ${brokers} brokers, RF 3`);
  const time = <T>(label: string, fn: () => T): T => {
    fn(); // warm-up
    const t0 = performance.now();
    const out = fn();
    console.log(`  ${label}: ${ms(performance.now() - t0)}`);
    return out;
  };
  const drain = time('planDrain(broker 4)', () => planDrain(snapshot, { broker: 4 }, {}));
  if (!drain.ok) throw new Error(refusalText(drain.refusal));
  const moves = drain.plan.steps[0]!.action === 'reassign' ? drain.plan.steps[0]!.partitions.length : 0;
  time('drain fingerprint recomputed (executor precondition check)', () => digestOf(preconditionsFor(drain.plan, snapshot)));
  const planJson = JSON.stringify(drain.plan);
  const gz = gzipSync(Buffer.from(planJson), { level: 9 }).length;
  console.log(
    `  drain plan: ${moves.toLocaleString('en')} partitions moved, plan JSON ${(planJson.length / 1024).toFixed(0)} KiB, ` +
      `gzipped ${(gz / 1024).toFixed(0)} KiB = ${Math.ceil(gz / 300_000)} PLAN# chunk item(s) in DynamoDB`,
  );
  const topic = topics[5]!.name;
  const override = time('planLeaderOverride (find partition, candidates, steps)', () =>
    planLeaderOverride(snapshot, { topic, partition: 3 }, { replicaData: victim.replicas.map((b, i) => ({ brokerId: b, logEndOffset: 1000 * (i + 1), source: "bench" })), groups: [] }),
  );
  if (!override.ok) throw new Error(refusalText(override.refusal));
  console.log(`  leader override plan JSON ${(JSON.stringify(override.plan).length / 1024).toFixed(1)} KiB`);
}
