// The fault-injection suite on the real sandbox: the diagnosis with its host
// probes, and an approved raise of a replication factor whose every write
// (the run's records, its throttles, the reassignment, the messages) is
// followed, in turn, by the worker process stopping and the job being
// delivered again. Afterwards Kafka itself must show what a run without the
// fault leaves: the new replicas in place, no reassignment in progress and
// no throttle left behind. Tables on dynalite, Slack on the stub.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createDefaultAuditor } from '../../lib/audit/jobs.ts';
import { createDefaultDiagnoser } from '../../lib/diagnose/diagnoser.ts';
import { assessRestart } from '../../lib/diagnose/can-restart.ts';
import { executorFactory } from '../../lib/hosts/executors.ts';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import { createDefaultOperations } from '../../lib/operations/backend.ts';
import { createTopic, withAdmin } from '../../sandbox/client.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { hasSandbox, testSandbox } from '../sandbox/helpers.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { everyWriteStopped, type Scenario } from './suite.ts';
import { APPROVERS, FAULT_CONFIG, type WorldParts } from './world.ts';

const up = hasSandbox();
let dynamo: LocalDynamo;
let stub: SlackStub;
let parts: WorldParts;
let topic = '';
let runs = 0;

beforeAll(async () => {
  if (!up) return;
  dynamo = await startLocalDynamo();
  stub = await new SlackStub().start();
  const sandbox = sandboxConfig().config;
  const cluster = { ...sandbox.clusters[0]!, load: { shareDiagnosisSeconds: 0, maxSnapshotsInFlight: 10 } };
  const executors = executorFactory();
  parts = {
    dynamo,
    stub,
    config: { ...FAULT_CONFIG, clusters: [cluster], defaultCluster: cluster.name, operations: { pollSeconds: 1 } },
    diagnoser: createDefaultDiagnoser(executors),
    auditor: createDefaultAuditor(executors),
    operations: () => createDefaultOperations(executors, { assessRestart }),
    topics: () => (topic ? [topic] : []),
  };
});
afterAll(async () => {
  await stub?.stop();
  await dynamo?.close();
});

const requestId = (plan: StubMessage): string => {
  const id = JSON.stringify(plan.blocks).match(/"action_id":"ops:approve"[^}]*?"value":"([^"]+)"|"value":"([^"]+)"[^}]*?"action_id":"ops:approve"/);
  if (!id?.[1] && !id?.[2]) throw new Error(`no Approve button on: ${plan.text}`);
  return (id[1] ?? id[2])!;
};

const SCENARIOS: Scenario[] = [
  { name: 'diagnose (real probes)', arrange: async (w) => void (await w.slash('diagnose sandbox')) },
  {
    name: 'ops.execute: raise-rf approved and run on Kafka',
    arrange: async (w) => {
      // A topic of its own per run: the run changes its replicas.
      topic = `fault-rf-${process.pid}-${++runs}`;
      await withAdmin(testSandbox().bootstrapServers, (admin) => createTopic(admin, topic, { assignment: [[1], [2], [3]] }));
      await w.slash(`raise-rf ${topic} 2`);
      await w.settle();
      const plan = stub.topLevel('C0OPS').at(-1)!;
      await w.click('ops:approve', requestId(plan), APPROVERS[0], plan);
      await w.settle();
      await w.click('ops:approve', requestId(plan), APPROVERS[1], plan);
    },
  },
];

describe.skipIf(!up)('on the sandbox: every write stopped after, the job delivered again', () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    await everyWriteStopped(parts, scenario);
  }, 900_000);
});
