// Transactions after a rescue, on the real sandbox (4.4.0 KRaft by default),
// through the Slack handler and the worker: an RF-3 partition with a
// transactional producer (kafkajs); the followers stop so the ISR shrinks to
// the leader, the last transaction commits there alone, then the leader is
// lost. The leader-override plan posted for approval warns that the chosen
// replica's log holds that transaction without its COMMIT marker; after the
// election the run's check waits while the coordinators (on the lost broker)
// cannot answer, then, once the old leader is back, finds the transaction
// hanging and posts the abort plan into the same thread. Kafka's own
// `kafka-transactions.sh find-hanging` agrees, a read_committed consumer is
// stuck at the LSO, and the abort approved by two (the ABORT marker
// `kafka-transactions.sh abort` writes) unblocks it.
// Then: a slow but live transaction is lso-stalled, and its abort is refused.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import type { ApprovalService } from '../../lib/approvals/index.ts';
import { parseConfig, type ClusterConfig } from '../../lib/config/schema.ts';
import { detect } from '../../lib/diagnose/detect.ts';
import { runDiagnosis } from '../../lib/diagnose/run.ts';
import { openAdmin, type KafkaAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import { readTransactions } from '../../lib/kafka/transactions.ts';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { createDefaultOperations } from '../../lib/operations/backend.ts';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import { DynamoStateStore, STATE_TABLE_KEYS } from '../../lib/state/dynamo-state-store.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { Sandbox } from '../../sandbox/cluster.ts';
import { createTopic, kafkaClient, offsetsPartitionFor, waitFor, withAdmin } from '../../sandbox/client.ts';
import { binDir, bootstrapServers, nodeLayout, sandboxSettings } from '../../sandbox/layout.ts';
import { LocalExecutor } from '../../lib/hosts/local-executor.ts';
import { lostMarkerWarnings } from '../../lib/operations/kinds/leader-override/assignment-steps.ts';
import { measureReplicas } from '../../lib/operations/kinds/leader-override/replica-data.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { approvalsOn } from '../approvals/two-approvers.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { actionEvent, blockActionsPayload, slashEvent } from '../slack/helpers/signed.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';

const up = hasSandbox();
const settings = sandboxSettings();
const bootstrap = bootstrapServers(settings);
const bin = binDir(settings);
const connection = parseConnectionConfig({ bootstrap: bootstrap.split(',') });
const config = parseConfig({
  clusters: [{ name: 'sandbox', bootstrap: bootstrap.split(','), hosts: { executor: 'none' }, diagnosisTimeoutMs: 30_000 }],
  slack: { allowEveryone: true, incidentChannel: 'C0INCIDENT' },
  approvals: { approvers: ['UALICE', 'UBOB'] },
});
const cluster = config.clusters[0] as ClusterConfig;
const operations = createDefaultOperations(async () => null);
const topic = 'txn-rescue';
const group = 'txn-readers';
const TXN_STATE = '__transaction_state';
const kafkaNewer = !settings.kafkaVersion.startsWith('2.');

const kafkaCli = (tool: string, args: string[]) => execFileSync(`${bin}/${tool}`, ['--bootstrap-server', bootstrap, ...args], { encoding: 'utf8', timeout: 120_000 });
const findHanging = () => kafkaCli('kafka-transactions.sh', ['find-hanging', '--topic', topic, '--max-transaction-timeout', '0']);
const hangingRows = (text: string) => text.split('\n').filter((l) => l.startsWith(`${topic} `) || l.startsWith(`${topic}\t`));

let dynamo: LocalDynamo;
let approvals: ApprovalService<Plan>;
let sandbox: Sandbox;
let admin: KafkaAdmin;

let stub: SlackStub;
let h: Harness;
let seq = 0;
const CHANNEL = 'C0OPS';

async function slash(text: string, user: string): Promise<void> {
  const res = await h.handler(slashEvent({ text, user, channel: CHANNEL, responseUrl: stub.responseUrl(`s${++seq}`) }));
  expect(res.statusCode).toBe(200);
}

/** A real signed Approve click; the bot answers the clicker only when the click does not count. */
async function click(requestId: string, user: string, message: StubMessage): Promise<void> {
  const id = `c${++seq}`;
  const payload = blockActionsPayload({ actionId: 'ops:approve', value: requestId, user, message, responseUrl: stub.responseUrl(id), actionTs: `${Math.floor(Date.now() / 1000)}.${String(seq).padStart(6, '0')}` });
  expect((await h.handler(actionEvent(payload))).statusCode).toBe(200);
  expect(stub.responses.find((r) => r.path === `/response/${id}`)?.body.text).toBeUndefined();
}

/** The plan message's request id: the Approve button's value. */
function requestIdOf(m: StubMessage): string {
  const actions = (m.blocks as { type: string; elements?: { action_id: string; value: string }[] }[]).find((b) => b.type === 'actions');
  const approve = actions?.elements?.find((e) => e.action_id === 'ops:approve');
  if (!approve) throw new Error(`no Approve button on: ${m.text}`);
  return approve.value;
}
const blockText = (m: StubMessage) => JSON.stringify(m.blocks);

const part0 = async (t = topic) => (await admin.metadata([t])).topicMetadata[0]!.partitionMetadata.find((p) => p.partitionId === 0)!;

beforeAll(async () => {
  if (!up) return;
  sandbox = new Sandbox(settings, () => {});
  dynamo = await startLocalDynamo();
  ({ approvals } = await approvalsOn(dynamo.client, 'approvals-txn-int', 3_600_000));
  admin = await openAdmin(connection, { timeoutMs: 15_000 });
  // The worker and the Slack handler as deployed (the local defaults, no host access), on a Slack stub;
  // operations poll every 2 s (10 s by default) to keep the suite short.
  stub = await new SlackStub().start();
  const { config: slackConfig } = sandboxConfig({ ...process.env, KR_HOST_EXECUTOR: 'none', KR_SLACK_USERS: 'UOPERATOR,UALICE,UBOB', KR_APPROVERS: 'UALICE,UBOB', KR_INCIDENT_CHANNEL: 'C0INCIDENT', KR_OPERATIONS_POLL_SECONDS: '2' });
  await dynamo.client.send(new CreateTableCommand({ TableName: 'state-txn-int', BillingMode: 'PAY_PER_REQUEST', ...STATE_TABLE_KEYS }));
  h = buildHarness({ stub, store: new DynamoStateStore(dynamo.client, 'state-txn-int'), config: slackConfig, approvals, operations });
});
afterAll(async () => {
  await stub?.stop();
  await admin?.close();
  await dynamo?.close();
});

describe.skipIf(!up || !kafkaNewer)('transactions after a rescue, on the sandbox', () => {
  it('override to a replica without the COMMIT marker: warned in the plan; the run finds it hanging once the coordinators answer and proposes the abort; find-hanging agrees; two approve; the consumer passes the old LSO', async () => {
    const t0 = Date.now();
    // A fresh cluster creates __transaction_state on the first transactional producer's FindCoordinator.
    // kafkajs asks for a producer id (FindCoordinator, then InitProducerId) at the first transaction, not at connect.
    const starter = kafkaClient(bootstrap, 'txn-int-starter').producer({ transactionalId: 'txn-int-starter', idempotent: true, maxInFlightRequests: 1 });
    await starter.connect();
    try {
      await (await starter.transaction()).abort();
    } finally {
      await starter.disconnect();
    }
    await waitFor(
      `${TXN_STATE} led everywhere`,
      async () => {
        const ps = (await admin.metadata([TXN_STATE])).topicMetadata[0]?.partitionMetadata ?? [];
        return ps.length > 0 && ps.every((p) => p.leader >= 0);
      },
      120_000,
    );
    // With the followers stopped the coordinator writes its log on the leader alone (the sandbox asks 2 in sync).
    kafkaCli('kafka-configs.sh', ['--alter', '--entity-type', 'topics', '--entity-name', TXN_STATE, '--add-config', 'min.insync.replicas=1']);
    try {
      await withAdmin(bootstrap, async (a) => {
        if ((await a.listTopics()).includes(topic)) await a.deleteTopics({ topics: [topic] });
        await createTopic(a, topic, { assignment: [[1, 2, 3]], configs: { 'min.insync.replicas': '1' } });
      });
      // The producer's coordinator must be broker 1, the one still up while the followers are stopped.
      // Earlier files may have left broker 1 leading none of its partitions (a rolling restart):
      // the preferred election gives it back the ones it leads by assignment.
      let state = (await admin.metadata([TXN_STATE])).topicMetadata[0]!.partitionMetadata;
      if (!state.some((p) => p.leader === 1)) {
        await admin.electLeaders('preferred', state.map((p) => ({ topic: TXN_STATE, partition: p.partitionId })));
        await waitFor('broker 1 leading a __transaction_state partition', async () => (await admin.metadata([TXN_STATE])).topicMetadata[0]!.partitionMetadata.some((p) => p.leader === 1), 30_000);
        state = (await admin.metadata([TXN_STATE])).topicMetadata[0]!.partitionMetadata;
      }
      const transactionalId = Array.from({ length: 500 }, (_, i) => `txn-rescue-${i}`).find((id) => state.find((p) => p.partitionId === offsetsPartitionFor(id, state.length))?.leader === 1)!;
      expect(transactionalId, `a transactional id whose coordinator is broker 1 (leaders: ${state.map((p) => p.leader).join(',')})`).toBeDefined();
      const producer = kafkaClient(bootstrap, 'txn-int-producer').producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 60_000 });
      await producer.connect();
      const first = await producer.transaction();
      await first.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ partition: 0, value: `committed ${i}` })) });
      await first.commit();
      const last = await producer.transaction();
      // acks=all with all three in sync: every replica holds these 10 records (offsets 11-20)…
      await last.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ partition: 0, value: `last ${i}` })) });
      await sandbox.stop(2);
      await sandbox.stop(3);
      await waitFor('ISR of the partition = [1]', async () => (await part0()).isr.join(',') === '1');
      // …and only broker 1 gets the COMMIT marker.
      await last.commit();
      await producer.disconnect();
      // EndTxn returns once the coordinator has logged PrepareCommit; the markers and CompleteCommit follow. Killed
      // before CompleteCommit (a loaded machine), the coordinator finishes the commit when it is back: it writes the
      // COMMIT marker again, to broker 3 this time, and nothing hangs. So broker 1 dies only once it has finished.
      await waitFor('the coordinator completed the commit', async () => (await admin.describeTransactions([transactionalId]))[0]?.state === 'CompleteCommit', 30_000);
      await sandbox.kill(1);
      await Promise.all([sandbox.start(2), sandbox.start(3)]);
      await waitFor(`${topic}-0 leaderless`, async () => (await part0()).leader === -1, 120_000);
      console.log(`[txn] outage made: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      // The dead old leader's own disk, read on its host as the override's planner reads it: its COMMIT
      // marker sits at broker 3's end (offset 21), on the tail the election drops.
      const oldLeader = nodeLayout(settings, 1);
      const [onHost] = await measureReplicas(new LocalExecutor({ concurrency: 1 }), [{ target: { brokerId: 1, address: oldLeader.hostDir }, logDirs: [oldLeader.dataDir], kafkaBin: bin }], topic, 0);
      expect(onHost?.lastSegmentTransactions?.markers, JSON.stringify(onHost)).toContainEqual({ producerId: expect.any(Number), offset: 21 });
      const lost = lostMarkerWarnings({ topic, partition: 0 }, 3, new Map([[1, onHost!], [3, { brokerId: 3, logEndOffset: 21, source: 'metadata' }]]));
      expect(lost).toMatchObject([{ code: 'markers-on-lost-tail', broker: 1, from: 3, markers: 1, firstOffset: 21 }]);

      // The override, asked in Slack and approved by two: the plan message warns before anything runs.
      await slash('elect-leader txn-rescue 0 3', 'UOPERATOR');
      await h.queue.idle();
      const plan = stub.topLevel(CHANNEL).at(-1)!;
      const overrideId = requestIdOf(plan);
      expect(blockText(plan)).toMatch(/Transactions: broker 3's copy of txn-rescue-0 holds a transaction with no COMMIT or ABORT marker \(producer \d+ from offset 11\).*read_committed consumers .* stop at that offset/);
      expect((await approvals.get(overrideId))!.plan.steps.at(-1)?.action).toBe('check-transactions');
      await click(overrideId, 'UALICE', plan);
      await click(overrideId, 'UBOB', plan);
      // Broker 1 (and with it every coordinator's log) is still down: the check waits, never "hanging" from silence.
      const thread = () => stub.thread(plan.ts).map((m) => m.text);
      await waitFor('the check waits for the coordinator', async () => thread().some((t) => /cannot tell yet .*__transaction_state partitions .* have no leader.*waiting for its coordinator/.test(t)), 60_000);
      // The old leader returns: it truncates to broker 3's log, the marker is gone for good; its coordinators are back.
      await sandbox.start(1);
      await h.queue.idle();
      expect((await approvals.get(overrideId))!.status).toBe('SUCCEEDED');
      expect(stub.thread(plan.ts).map(blockText).join('\n')).toMatch(/check-transactions\*: ok — txn-rescue-0: LSO 11, high watermark 21; HANGING: producer \d+ from offset 11 \((coordinator-not-found|coordinator-moved-on)\); its abort is proposed for two approvals/);
      // The run proposes the abort itself: a new plan in the same thread, for two approvals.
      const abortPlan = stub.thread(plan.ts).find((m) => /^REQUESTED: abort the hanging transaction of producer \d+ on txn-rescue-0 from offset 11/.test(m.text));
      expect(abortPlan, thread().join('\n')).toBeDefined();
      const abortId = requestIdOf(abortPlan!);
      expect((await approvals.get(abortId))!.requester).toBe('UOPERATOR');
      console.log(`[txn] override approved → abort plan posted: ${((Date.now() - t0) / 1000).toFixed(1)} s since start`);

      // A read_committed consumer stops at the LSO (11) for good, and commits there.
      const consumer = kafkaClient(bootstrap, 'txn-int-consumer').consumer({ groupId: group, readUncommitted: false });
      let seen = 0;
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ autoCommitInterval: 200, autoCommitThreshold: 1, eachMessage: async () => void seen++ });
      await waitFor('the consumer read the first transaction', async () => seen >= 10);
      // kafkajs commits "last record + 1" (10, the COMMIT marker's offset); Java's consumer would commit 11.
      // The consumer commits its position itself too: an auto-commit can be lost to a coordinator that moved as broker 1 came back.
      await waitFor('the consumer committed at the LSO', async () => {
        const committed = (await admin.fetchCommittedOffsets(group, [{ topic, partition: 0 }]))[0]?.offset ?? -1;
        if ([10, 11].includes(committed)) return true;
        await consumer.commitOffsets([{ topic, partition: 0, offset: '10' }]).catch(() => undefined);
        return false;
      });
      await new Promise((r) => setTimeout(r, 1_500));
      expect(seen).toBe(10);

      // The bot's diagnosis (topic-limited: what `/kafka transactions txn-rescue` runs) names it, with the group.
      const report = await runDiagnosis({ cluster: 'sandbox', connection, topic, timeoutMs: 30_000, lagWindowMs: 0 });
      const hanging = report.findings.find((f) => f.kind === 'hanging-transaction');
      expect(hanging, JSON.stringify(report.findings.map((f) => f.kind))).toBeDefined();
      expect(hanging!.affected.partitions).toEqual([{ topic, partition: 0 }]);
      expect(hanging!.title).toBe(`Hanging transaction on ${topic}-0 from offset 11`);
      expect(hanging!.evidence.find((e) => e.label === 'offsets')?.value).toBe('LSO 11, high watermark 21');
      expect(hanging!.affected.groups).toEqual([group]);
      // Kafka's own tool, without its age filter, finds the same transaction.
      const rows = hangingRows(findHanging());
      expect(rows).toHaveLength(1);
      const producerId = /producer (\d+)/.exec(hanging!.evidence[0]!.value)![1];
      expect(rows[0]!.split(/\s+/).slice(0, 6)).toEqual([topic, '0', producerId, expect.any(String), expect.any(String), '11']);

      // The proposed abort, approved by two, re-checked live before it runs; then the LSO and the stalled group.
      // Planned before the consumer joined: the verify step finds the group at the old LSO itself.
      expect((await approvals.get(abortId))!.plan.params).toMatchObject({ startOffset: 11, lso: 11, highWatermark: 21 });
      const t1 = Date.now();
      await click(abortId, 'UALICE', abortPlan!);
      await click(abortId, 'UBOB', abortPlan!);
      await h.queue.idle();
      expect((await approvals.get(abortId))!.status).toBe('SUCCEEDED');
      console.log(`[txn] abort: second approval → finished in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
      expect(stub.thread(plan.ts).map(blockText).join('\n')).toMatch(/verify-lso\*: ok — last stable offset of txn-rescue-0 is 22, past 11; txn-readers at (10|11|22) can read up to 22/);
      // The consumer reads on past the old LSO (the aborted records are skipped), and Kafka finds nothing hanging.
      await producerWrites(3);
      await waitFor('the consumer read past the old LSO', async () => seen >= 13, 30_000);
      await consumer.disconnect();
      expect(hangingRows(findHanging())).toEqual([]);
      console.log(`[txn] whole rescue: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } finally {
      await sandbox.start(1);
      await sandbox.start(2);
      await sandbox.start(3);
      kafkaCli('kafka-configs.sh', ['--alter', '--entity-type', 'topics', '--entity-name', TXN_STATE, '--delete-config', 'min.insync.replicas']);
    }
  }, 600_000);

  it('a slow but live transaction is lso-stalled, not hanging, and its abort is refused', async () => {
    const slow = 'txn-slow';
    await withAdmin(bootstrap, async (a) => {
      if ((await a.listTopics()).includes(slow)) await a.deleteTopics({ topics: [slow] });
      await createTopic(a, slow, { assignment: [[1, 2, 3]] });
    });
    const producer = kafkaClient(bootstrap, 'txn-int-slow').producer({ transactionalId: 'txn-slow-producer', idempotent: true, maxInFlightRequests: 1, transactionTimeout: 60_000 });
    await producer.connect();
    const tx = await producer.transaction();
    await tx.send({ topic: slow, messages: [{ partition: 0, value: 'open' }] });
    // Other writers keep the high watermark moving while the transaction stays open.
    let writing = true;
    const plain = kafkaClient(bootstrap, 'txn-int-plain').producer();
    await plain.connect();
    const writer = (async () => {
      for (let i = 0; writing && i < 200; i++) {
        await plain.send({ topic: slow, messages: [{ partition: 0, value: `plain ${i}` }] });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      const snapshot = await takeSnapshot(connection, { topics: [slow], timeoutMs: 15_000 });
      snapshot.transactions = await readTransactions(admin, { partitions: [{ topic: slow, partition: 0 }], configBroker: 1, sampleWindowMs: 2_000 });
      const findings = detect(snapshot);
      const stalled = findings.find((f) => f.kind === 'lso-stalled');
      expect(stalled, JSON.stringify(snapshot.transactions)).toBeDefined();
      expect(stalled!.summary).toContain('transactional id txn-slow-producer');
      expect(findings.some((f) => f.kind === 'hanging-transaction')).toBe(false);
      expect(findings.flatMap((f) => f.nextActions).join('\n')).not.toMatch(/abort-transaction/);
      const refused = await operations.plan(cluster, { kind: 'abort-transaction', topic: slow, partition: 0, startOffset: 0 });
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.refusal.code).toBe('transaction-live');
    } finally {
      writing = false;
      await writer;
      await tx.abort().catch(() => undefined);
      await Promise.all([producer.disconnect(), plain.disconnect()]);
      await withAdmin(bootstrap, (a) => a.deleteTopics({ topics: [slow] })).catch(() => undefined);
    }
  }, 120_000);
});

/** A few more committed records on the rescued partition, from a new producer. */
async function producerWrites(n: number): Promise<void> {
  const p = kafkaClient(bootstrap, 'txn-int-after').producer();
  await p.connect();
  await p.send({ topic, acks: -1, messages: Array.from({ length: n }, (_, i) => ({ partition: 0, value: `after ${i}` })) });
  await p.disconnect();
}

// Kafka 2.8 answers DescribeProducers (KIP-664's first API) but has no ListTransactions / DescribeTransactions (3.0):
// an open transaction is read, its coordinator's view is "not available on this broker version", never an error
// and never "hanging" from that alone. Runs on the matrix's ZooKeeper 2.8 line (test/sandbox/matrix.ts).
describe.skipIf(!up || kafkaNewer)('transactions on a broker before 3.0', () => {
  it('before 3.0: "not available on this broker version" in the diagnosis and the CLI, not an error', async () => {
    const old = 'txn-old-broker';
    await withAdmin(bootstrap, async (a) => {
      if (!(await a.listTopics()).includes(old)) await createTopic(a, old, { assignment: [[1, 2, 3]] });
    });
    await waitFor(`${old} led`, async () => (await part0(old)).leader >= 0);
    const producer = kafkaClient(bootstrap, 'txn-int-old').producer({ transactionalId: 'txn-old-producer', idempotent: true, maxInFlightRequests: 1, transactionTimeout: 60_000 });
    await producer.connect();
    const tx = await producer.transaction();
    try {
      await tx.send({ topic: old, messages: [{ partition: 0, value: 'open' }] });
      const view = await readTransactions(admin, { partitions: [{ topic: old, partition: 0 }], sampleWindowMs: 0 });
      expect(view.status, JSON.stringify(view)).toBe('ok');
      expect(view.partitions[0]?.openTransactions[0]?.coordinatorView, JSON.stringify(view)).toMatchObject({ lookup: 'unknown', reason: expect.stringMatching(/^not available on this broker version: the coordinator's view .* needs Kafka 3\.0 or later/) });
      const report = await runDiagnosis({ cluster: 'sandbox', connection, topic: old, timeoutMs: 30_000, lagWindowMs: 0 });
      expect(report.skippedChecks.join('\n')).toMatch(/Transaction check \(hanging-transaction, from the coordinator's view\): not available on this broker version/);
      expect(report.skippedChecks.join('\n')).not.toMatch(/could not run/);
      expect(report.findings.filter((f) => f.kind === 'hanging-transaction')).toEqual([]);
      // The installed bin, as users run it.
      const out = execFileSync(process.execPath, ['bin/kafka-responder.js', 'transactions', old, '--bootstrap', bootstrap], { encoding: 'utf8', timeout: 60_000 });
      expect(out).toMatch(/not available on this broker version/);
    } finally {
      await tx.abort().catch(() => undefined);
      await producer.disconnect();
    }
  }, 120_000);
});
