// Operations on the sandbox, timed the way an incident sees them:
//   1. second approval → partition writable: the leaderless partition of the
//      isr-one-leader-lost scenario (last in-sync leader killed and wiped),
//      with serve's default config for the sandbox (host access through the
//      local executor); from the moment the second Approve is recorded until
//      a producer with acks=all has its first write acknowledged, and the
//      run's own phases from its audit trail (re-checked → elected →
//      writable → done), each step's duration beside them. No JVM starts on
//      that path (everything goes over the Kafka protocol).
//      The whole path as users run it (serve, signed clicks): bench/outage.ts.
//   2. reassignment progress overhead: what one progress poll of a running
//      reassignment costs (ListPartitionReassignments, a metadata snapshot of
//      the moving topics, DescribeLogDirs on the brokers involved).
//
//   npx tsx bench/operations.ts [rounds]     (default 3)
import { ApprovalService, ApprovalStore } from '../lib/approvals/index.ts';
import type { ClusterConfig } from '../lib/config/schema.ts';
import { runTiming, type RunTiming } from '../lib/approvals/run-timing.ts';
import { executorFactory } from '../lib/hosts/executors.ts';
import { sandboxConfig } from '../lib/local/defaults.ts';
import { createDefaultOperations } from '../lib/operations/backend.ts';
import { runTick } from '../lib/operations/runner.ts';
import { runStep } from '../lib/operations/steps.ts';
import type { Plan } from '../lib/operations/types.ts';
import { Sandbox } from '../sandbox/cluster.ts';
import { createTopic, kafkaClient, produce, withAdmin } from '../sandbox/client.ts';
import type { Producer } from 'kafkajs';
import { runScenario } from '../sandbox/scenarios.ts';
import { startLocalDynamo } from '../test/approvals/local-dynamodb.ts';
import { refusalText } from '../lib/operations/render-text.ts';

const ROUNDS = Number(process.argv[2] ?? 3);

/** When an acks=all write to orders-0 is first answered (performance.now()), trying every 50 ms for at most a minute. */
async function firstAcksAllWrite(producer: Producer, from: number): Promise<number> {
  while (performance.now() - from < 60_000) {
    try {
      await producer.send({ topic: 'orders', acks: -1, timeout: 1_000, messages: [{ partition: 0, value: 'bench' }] });
      return performance.now();
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error('orders-0 took no acks=all write within a minute');
}

/** The run's phases and each step's duration, from its audit trail (ms after the second approval), median over the rounds. */
function printPhases(timings: readonly RunTiming[]): void {
  const phases = [...new Set(timings.flatMap((t) => t.phases.map((p) => p.phase)))];
  for (const phase of phases) {
    const xs = timings.map((t) => t.phases.find((p) => p.phase === phase)?.afterMs).filter((x): x is number => x !== undefined);
    console.log(`  ${`approval → ${phase}`.padEnd(24)} ${fmt(xs)}`);
  }
  const steps = timings[0]?.steps ?? [];
  for (const [i, s] of steps.entries()) {
    const xs = timings.map((t) => t.steps[i]).filter((x) => x && x.name === s.name && x.startedMs !== null).map((x) => x!.endedMs - x!.startedMs!);
    console.log(`    step ${s.index < 0 ? 'check' : s.index + 1} ${s.name.padEnd(20)} ${fmt(xs)}`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms  [${xs.map((x) => x.toFixed(0)).join(', ')}]`;

const sandbox = new Sandbox(undefined, () => {});
await sandbox.up();
const bootstrap = sandbox.bootstrapServers;
// serve's own default for the sandbox: host access through the local executor.
const cluster = sandboxConfig().config.clusters[0] as ClusterConfig;
const operations = createDefaultOperations(executorFactory());
const io = operations.io(cluster);
const dynamo = await startLocalDynamo();
const store = new ApprovalStore(dynamo.client, { tableName: 'bench-ops' });
await store.ensureTable();
const approvals = new ApprovalService<Plan>({ store, policy: { approvers: new Set(['UALICE', 'UBOB']), requiredApprovals: 2, ttlMs: 3_600_000 } });
const quiet = { step: async () => {}, progress: async () => {}, finished: async () => {} };

// Connected before the approval, no retries of its own and Metadata read before every send: each
// attempt (every 50 ms) sees the partition as it is, so the first one answered is when writes resumed.
const probe = kafkaClient(bootstrap, 'bench-writable-probe').producer({ allowAutoTopicCreation: false, retry: { retries: 0 }, metadataMaxAge: 0 });
await probe.connect();
const writable: number[] = [];
const timings: RunTiming[] = [];
for (let round = 0; round < ROUNDS; round++) {
  await runScenario(sandbox, 'isr-one-leader-lost');
  const planned = await operations.plan(cluster, { kind: 'leader-override', topic: 'orders', partition: 0, replica: 3 });
  if (!planned.ok) throw new Error(refusalText(planned.refusal));
  const requested = await approvals.request(planned.plan, 'UREQ', { context: { cluster: 'sandbox' } });
  if (!requested.ok) throw new Error(requested.message);
  await approvals.approve(requested.request.id, 'UALICE');
  const t0 = performance.now();
  await approvals.approve(requested.request.id, 'UBOB');
  // The worker picks the job up (in-process here: no queue latency counted) and runs until the leader is verified;
  // the run may still be waiting for the reorder to finish in the background: writes do not wait for that.
  const run = runTick({ approvals, io, requestId: requested.request.id, workerId: `bench-${round}`, deadline: Date.now() + 60_000, pollMs: 1_000, scheduleNext: async () => {}, report: quiet });
  writable.push((await firstAcksAllWrite(probe, t0)) - t0);
  const result = await run;
  if (result.kind !== 'finished' || result.status !== 'SUCCEEDED') throw new Error(`round ${round}: ${JSON.stringify(result)}`);
  const timing = runTiming((await approvals.get(requested.request.id))!);
  if (timing) timings.push(timing);
}
console.log(`second approval → first acks=all write on the rescued partition (${ROUNDS} rounds): ${fmt(writable)}  (target < 1000 ms)`);
printPhases(timings);

// Progress overhead: one poll of a running, throttled reassignment of 8 partitions.
await runScenario(sandbox, 'healthy');
// A fresh name each run: a topic deleted a moment ago may still be going away.
const topic = `bench-progress-${Date.now()}`;
await withAdmin(bootstrap, (admin) => createTopic(admin, topic, { assignment: [[1], [2], [1], [2], [1], [2], [1], [2]] }));
for (let p = 0; p < 8; p++) await produce(bootstrap, topic, p, 500, 1, 0, 1_000);
const raise = await operations.plan({ ...cluster, operations: { throttleBytesPerSec: 1024 } }, { kind: 'raise-replication-factor', topic, replicationFactor: 2 });
if (!raise.ok) throw new Error(refusalText(raise.refusal));
const requested = await approvals.request(raise.plan, 'UREQ', { context: { cluster: 'sandbox' } });
if (!requested.ok) throw new Error(requested.message);
await approvals.approve(requested.request.id, 'UALICE');
await approvals.approve(requested.request.id, 'UBOB');
// Start it (throttled to 1 KiB/s it copies for a long time), then time polls of the wait step alone.
await runTick({ approvals, io, requestId: requested.request.id, workerId: 'bench-progress', deadline: Date.now() + 6_000, pollMs: 500, scheduleNext: async () => {}, report: quiet });
const admin = await io.openAdmin();
const polls: number[] = [];
let text = '';
try {
  const running = (await approvals.get(requested.request.id))!;
  const wait = raise.plan.steps.find((s) => s.action === 'wait-reassignment')!;
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    const outcome = await runStep(wait, { plan: raise.plan, admin, snapshot: () => io.snapshot([topic]), run: running.run!, now: Date.now, ledger: { get: async () => null, put: async () => {} } });
    polls.push(performance.now() - t0);
    if (outcome.status === 'waiting') text = outcome.progress;
  }
} finally {
  await admin.close();
}
console.log(`one progress poll of a running reassignment (8 partitions): ${fmt(polls)}; e.g. "${text}"`);
await approvals.requestCancel(requested.request.id, 'UBOB', 'bench done');
await runTick({ approvals, io, requestId: requested.request.id, workerId: 'bench-cancel', deadline: Date.now() + 30_000, pollMs: 500, scheduleNext: async () => {}, report: quiet });
await withAdmin(bootstrap, (a) => a.deleteTopics({ topics: [topic] }));
await probe.disconnect();
await dynamo.close();
process.exit(0);
