// Compensation on the real sandbox (Kafka, KRaft), the oracle being Kafka's
// own CLI tools and the broker processes themselves:
//   - a restart cancelled between its stop and its start ends with the broker
//     running again, with a new pid (the local executor runs the fixed
//     service script on the broker's host dir, as SSM does on a host);
//   - after our cancelled reassignment, a human's kafka-reassign-partitions.sh
//     --execute on the same partitions is never cancelled by the sweep's cleanup.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalService } from '../../lib/approvals/index.ts';
import { parseConfig, type ClusterConfig } from '../../lib/config/schema.ts';
import { assessRestart } from '../../lib/diagnose/can-restart.ts';
import { executorFactory } from '../../lib/hosts/executors.ts';
import { createDefaultOperations } from '../../lib/operations/backend.ts';
import { refusalText } from '../../lib/operations/render-text.ts';
import { cleanupFinishedRun, runTick, type RunReporter, type TickResult } from '../../lib/operations/runner.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { Sandbox } from '../../sandbox/cluster.ts';
import { createTopic, produce, withAdmin } from '../../sandbox/client.ts';
import { BROKER_IDS, binDir, bootstrapServers, nodeLayout, sandboxSettings } from '../../sandbox/layout.ts';
import { runScenario } from '../../sandbox/scenarios.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { approvalsOn, approvedByTwo } from '../approvals/two-approvers.ts';
import { hasSandbox } from '../sandbox/helpers.ts';

const up = hasSandbox();
const settings = sandboxSettings();
const bootstrap = bootstrapServers(settings);
const bin = binDir(settings);

const config = parseConfig({
  clusters: [
    {
      name: 'sandbox',
      bootstrap: bootstrap.split(','),
      hosts: { executor: 'local', hostDirs: Object.fromEntries(BROKER_IDS.map((id) => [String(id), nodeLayout(settings, id).hostDir])), service: { unit: 'kafka', stopBoundSeconds: 120, readyTimeoutSeconds: 300 } },
      diagnosisTimeoutMs: 30_000,
    },
  ],
  slack: { allowEveryone: true, incidentChannel: 'C0INCIDENT' },
  approvals: { approvers: ['UALICE', 'UBOB'] },
});
const cluster = config.clusters[0] as ClusterConfig;
const operations = createDefaultOperations(executorFactory(), { assessRestart });
const io = operations.io(cluster);
const kafkaCli = (tool: string, args: string[]) => execFileSync(`${bin}/${tool}`, ['--bootstrap-server', bootstrap, ...args], { encoding: 'utf8', timeout: 120_000 });

let dynamo: LocalDynamo;
let approvals: ApprovalService<Plan>;
let sandbox: Sandbox;

beforeAll(async () => {
  if (!up) return;
  sandbox = new Sandbox(settings, () => {});
  dynamo = await startLocalDynamo();
  ({ approvals } = await approvalsOn(dynamo.client, 'approvals-compensation-int', 3_600_000));
});
afterAll(async () => {
  await dynamo?.close();
});

const approve = (plan: Plan) => approvedByTwo(approvals, plan, 'sandbox', 'UOPERATOR');

async function runToEnd(id: string, report: RunReporter, stopWhen?: (ticks: number) => boolean): Promise<TickResult> {
  for (let ticks = 1; ticks < 400; ticks++) {
    const result = await runTick({ approvals, io, requestId: id, workerId: `tick-${ticks}`, deadline: Date.now() + 30_000, pollMs: 1_000, scheduleNext: async () => {}, report });
    if (result.kind !== 'parked' || stopWhen?.(ticks)) return result;
  }
  throw new Error('the run did not end');
}

const quiet: RunReporter = { step: async () => {}, progress: async () => {}, finished: async () => {} };

describe.skipIf(!up)('compensation on the sandbox', () => {
  it('a restart cancelled between the stop and the start: CANCELLED, and the broker runs again with a new pid', async () => {
    await runScenario(sandbox, 'healthy');
    const planned = await operations.plan(cluster, { kind: 'restart-brokers', brokers: [2], rolling: false });
    if (!planned.ok) throw new Error(refusalText(planned.refusal));
    const host = planned.plan.steps.find((s) => s.action === 'stop-broker');
    if (host?.action !== 'stop-broker') throw new Error('no stop step');
    const hosts = (await io.restart!())!;
    const before = (await hosts.status(2, host.host)).pid;
    expect(before).not.toBeNull();
    const id = await approve(planned.plan);
    let stoppedPid: number | null | undefined;
    // Cancel pressed once the stop is audited, before the run goes on (the thread's posts run beside the run: no hook there).
    const record = approvals.recordStep.bind(approvals);
    approvals.recordStep = async (...args: Parameters<typeof record>) => {
      const recorded = await record(...args);
      if (args[2].name === 'stop-broker' && args[2].status === 'ok' && stoppedPid === undefined) {
        stoppedPid = (await hosts.status(2, host.host)).pid;
        await approvals.requestCancel(id, 'UBOB', 'changed my mind');
      }
      return recorded;
    };
    const result = await runToEnd(id, quiet);
    approvals.recordStep = record;
    expect(result, JSON.stringify(result)).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
    // It was down between the two, and it is up again: another process.
    expect(stoppedPid).toBeNull();
    const after = (await hosts.status(2, host.host)).pid;
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    expect((result as { summary: string }).summary).toMatch(/broker 2 started again/);
    // Back in the cluster before the next test.
    for (let i = 0; i < 120 && !(await io.snapshot(null)).brokers.some((b) => b.id === 2); i++) await new Promise((r) => setTimeout(r, 500));
    expect((await io.snapshot(null)).brokers.map((b) => b.id)).toContain(2);
  }, 300_000);

  it("a human's kafka-reassign-partitions.sh --execute after our cancelled run is never cancelled by the sweep", async () => {
    await runScenario(sandbox, 'healthy');
    const topic = `comp-int-${Date.now()}`;
    await withAdmin(bootstrap, (admin) => createTopic(admin, topic, { assignment: [[1], [1]] }));
    const dir = mkdtempSync(join(tmpdir(), 'kr-comp-'));
    try {
      for (let p = 0; p < 2; p++) await produce(bootstrap, topic, p, 3_000, 1, 0, 1_000);
      const planned = await operations.plan({ ...cluster, operations: { throttleBytesPerSec: 4 * 1024 } }, { kind: 'raise-replication-factor', topic, replicationFactor: 2 });
      if (!planned.ok) throw new Error(refusalText(planned.refusal));
      const ours = planned.plan.steps[0]!.action === 'reassign' ? planned.plan.steps[0]!.partitions.find((m) => m.partition === 0)!.replicas : [];
      const id = await approve(planned.plan);
      expect((await runToEnd(id, quiet, (ticks) => ticks >= 1)).kind).toBe('parked');
      await approvals.requestCancel(id, 'UBOB', 'wrong topic');
      expect(await runToEnd(id, quiet)).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
      expect(kafkaCli('kafka-reassign-partitions.sh', ['--list'])).not.toMatch(new RegExp(`${topic}-0`));

      // A human moves partition 0 to another broker than ours, slowly (throttled at a rate of their own), with Kafka's own tool.
      const other = [1, 2, 3].find((b) => !ours.includes(b))!;
      const file = join(dir, 'move.json');
      writeFileSync(file, JSON.stringify({ version: 1, partitions: [{ topic, partition: 0, replicas: [1, other] }] }));
      kafkaCli('kafka-reassign-partitions.sh', ['--execute', '--reassignment-json-file', file, '--throttle', '3000']);
      expect(kafkaCli('kafka-reassign-partitions.sh', ['--list'])).toMatch(new RegExp(`${topic}-0`));

      // The sweep's cleanup of our finished run, even one that believes it still owes the cancel.
      await approvals.putRunData(id, 'compensation', {});
      const cleaned = await cleanupFinishedRun(approvals, io, (await approvals.get(id))!);
      expect(cleaned.text).toMatch(/towards another target \(not ours\) left alone/);
      expect(kafkaCli('kafka-reassign-partitions.sh', ['--list'])).toMatch(new RegExp(`${topic}-0`));
    } finally {
      try {
        kafkaCli('kafka-reassign-partitions.sh', ['--cancel', '--reassignment-json-file', join(dir, 'move.json')]);
      } catch {
        // Not started, or finished already.
      }
      await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [topic] })).catch(() => undefined);
    }
  }, 600_000);
});
