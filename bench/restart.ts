// Rolling restart of the sandbox's three brokers, timed: per broker (live
// check → back in every ISR, with its graceful stop and its way back) and in
// total, run by the operations runner as the worker runs it (ticks of at most
// 30 s that park between polls), with the local executor on the host dirs.
//
//   npx tsx bench/restart.ts [rounds]     (default 1; each round restarts all three)
import { ApprovalService, ApprovalStore } from '../lib/approvals/index.ts';
import { parseConfig, type ClusterConfig } from '../lib/config/schema.ts';
import { assessRestart } from '../lib/diagnose/can-restart.ts';
import { executorFactory } from '../lib/hosts/executors.ts';
import { createDefaultOperations } from '../lib/operations/backend.ts';
import { runTick } from '../lib/operations/runner.ts';
import type { Plan } from '../lib/operations/types.ts';
import { Sandbox } from '../sandbox/cluster.ts';
import { BROKER_IDS, nodeLayout } from '../sandbox/layout.ts';
import { runScenario } from '../sandbox/scenarios.ts';
import { startLocalDynamo } from '../test/approvals/local-dynamodb.ts';
import { refusalText } from '../lib/operations/render-text.ts';

const ROUNDS = Number(process.argv[2] ?? 1);
const sandbox = new Sandbox(undefined, () => {});
await sandbox.up();
await runScenario(sandbox, 'healthy');
const config = parseConfig({
  clusters: [
    {
      name: 'sandbox',
      bootstrap: sandbox.bootstrapServers.split(','),
      hosts: { executor: 'local', hostDirs: Object.fromEntries(BROKER_IDS.map((id) => [String(id), nodeLayout(sandbox.settings, id).hostDir])), service: { unit: 'kafka', stopBoundSeconds: 120, readyTimeoutSeconds: 300 } },
    },
  ],
  slack: { allowEveryone: true, incidentChannel: 'C0BENCH' },
  approvals: { approvers: ['UALICE', 'UBOB'] },
});
const cluster = config.clusters[0] as ClusterConfig;
const operations = createDefaultOperations(executorFactory(), { assessRestart });
const io = operations.io(cluster);
const dynamo = await startLocalDynamo();
const store = new ApprovalStore(dynamo.client, { tableName: 'bench-restart' });
await store.ensureTable();
const approvals = new ApprovalService<Plan>({ store, policy: { approvers: new Set(['UALICE', 'UBOB']), requiredApprovals: 2, ttlMs: 3_600_000 } });
const quiet = { step: async () => {}, progress: async () => {}, finished: async () => {} };

for (let round = 0; round < ROUNDS; round++) {
  const t0 = performance.now();
  const planned = await operations.plan(cluster, { kind: 'restart-brokers', brokers: [], rolling: true });
  if (!planned.ok) throw new Error(refusalText(planned.refusal));
  const planMs = performance.now() - t0;
  const requested = await approvals.request(planned.plan, 'UREQ', { context: { cluster: 'sandbox' } });
  if (!requested.ok) throw new Error(requested.message);
  await approvals.approve(requested.request.id, 'UALICE');
  await approvals.approve(requested.request.id, 'UBOB');
  const t1 = performance.now();
  let ticks = 0;
  for (;;) {
    ticks++;
    const r = await runTick({ approvals, io, requestId: requested.request.id, workerId: `bench-${round}-${ticks}`, deadline: Date.now() + 30_000, pollMs: 1_000, scheduleNext: async () => {}, report: quiet });
    if (r.kind === 'finished') {
      if (r.status !== 'SUCCEEDED') throw new Error(`round ${round}: ${r.status}: ${r.summary}`);
      break;
    }
    if (r.kind === 'not-run') throw new Error(`round ${round}: ${r.message}`);
  }
  const totalS = (performance.now() - t1) / 1000;
  const done = (await approvals.get(requested.request.id))!;
  const steps = done.events.filter((e) => e.type === 'step');
  const plan = done.plan;
  const order = plan.kind === 'restart-brokers' ? plan.params.brokers : [];
  const perBroker = order.map((b) => {
    const of = (name: string) => steps.find((e) => e.data?.name === name && new RegExp(`broker ${b}\\b`).test(String(e.message)));
    const check = of('restart-check');
    const stopped = of('stop-broker');
    const started = of('start-broker');
    const ready = of('wait-broker-ready');
    const s = (a?: { at: number }, z?: { at: number }) => (a && z ? ((z.at - a.at) / 1000).toFixed(1) : '?');
    return `broker ${b}: ${s(check, ready)} s (check + graceful stop ${s(check, stopped)} s, start ${s(stopped, started)} s, back in every ISR ${s(started, ready)} s)`;
  });
  console.log(`round ${round + 1}: plan ${(planMs / 1000).toFixed(1)} s (snapshot + 3 probes + 3 service reads); rolling restart of ${order.length} brokers ${totalS.toFixed(1)} s in ${ticks} tick(s)`);
  for (const line of perBroker) console.log(`  ${line}`);
}
await dynamo.close();
process.exit(0);
