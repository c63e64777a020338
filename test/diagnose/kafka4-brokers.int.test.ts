// Kafka 4 brokers and transactions as the diagnosis sees them on the real
// sandbox (KRaft 4.x: three controllers, brokers 1-3), each checked against
// Kafka's own tools:
//   - broker-fenced: a stopped broker is fenced at once (controlled shutdown),
//     a killed one once its broker session times out; `kafka-cluster.sh
//     list-endpoints --include-fenced-brokers` agrees; started again, the
//     finding clears. A fourth broker that holds no replica and whose process
//     is gone gets the unregister command, and that command unregisters it.
//   - transaction-unresolved: the incident-1 outage (leader lost with an ISR
//     of one, unclean election) under a transactional producer whose COMMIT
//     marker only the lost leader had, while the __transaction_state partition
//     coordinating it has no leader; `kafka-transactions.sh describe-producers`
//     agrees on the open transaction. Once the old leader is back the verdict
//     is hanging-transaction.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveClusterTarget } from '../../lib/diagnose/cli-support.ts';
import { diagnosisInputFor, runDiagnosis } from '../../lib/diagnose/run.ts';
import { sandboxTarget } from '../../lib/cli/sandbox-target.ts';
import type { DiagnosisReport, Finding } from '../../lib/diagnose/types.ts';
import { openAdmin, type KafkaAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { Sandbox } from '../../sandbox/cluster.ts';
import { createTopic, kafkaClient, kafkaTool, offsetsPartitionFor, sleep, waitFor, withAdmin } from '../../sandbox/client.ts';
import { binDir, bootstrapServers, sandboxSettings } from '../../sandbox/layout.ts';
import { ExtraBroker, kafkaCluster, listEndpoints } from '../helpers/extra-broker.ts';
import { hasSandbox } from '../sandbox/helpers.ts';

const up = hasSandbox();
const settings = sandboxSettings();
const kraft4 = settings.mode === 'kraft' && settings.kafkaVersion.startsWith('4.');
const bootstrap = bootstrapServers(settings);
const bin = binDir(settings);
const connection = parseConnectionConfig({ bootstrap: bootstrap.split(',') });
const TXN_STATE = '__transaction_state';
const elapsed = (t0: number) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

/** The CLI's default diagnosis of the sandbox: every topic, the brokers' hosts probed locally. */
async function diagnose(): Promise<DiagnosisReport> {
  return runDiagnosis({ ...diagnosisInputFor(await resolveClusterTarget({}, process.env, sandboxTarget)), lagWindowMs: 0 });
}
const about = (r: DiagnosisReport, kind: string, broker: number): Finding[] => r.findings.filter((f) => f.kind === kind && f.affected.brokers.includes(broker));
const kindsOf = (r: DiagnosisReport) => r.findings.map((f) => `${f.kind} ${f.affected.brokers.join(',')}`);

/** Diagnoses every 2 s until `ok(report)`, at most `timeoutMs`; the last report either way. */
async function diagnoseUntil(what: string, ok: (r: DiagnosisReport) => boolean, timeoutMs = 90_000): Promise<DiagnosisReport> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await diagnose();
    if (ok(r)) return r;
    if (Date.now() > deadline) throw new Error(`no diagnosis showed ${what} within ${timeoutMs / 1000} s; the last: ${kindsOf(r).join('; ')}`);
    await sleep(2_000);
  }
}

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = new Sandbox(settings, () => {});
});

describe.skipIf(!up || !kraft4)('fenced brokers on Kafka 4 (KIP-1073)', { timeout: 600_000 }, () => {
  const extra = new ExtraBroker(settings, 4);
  // Replicas on broker 3 whatever ran before (a fresh cluster has no topic at all).
  const held = 'fenced-replicas';
  beforeAll(async () => {
    await withAdmin(bootstrap, async (a) => {
      if (!(await a.listTopics()).includes(held)) await createTopic(a, held, { assignment: [[3, 1, 2], [1, 2, 3]] });
    });
  });
  afterAll(async () => {
    await withAdmin(bootstrap, (a) => a.deleteTopics({ topics: [held], timeout: 30_000 })).catch(() => undefined);
    // The next test file reuses the cluster: brokers 1-3 up, broker 4 neither running nor registered.
    await extra.stop().catch(() => undefined);
    await kafkaCluster(settings, ['unregister', '--bootstrap-server', bootstrap, '--id', '4']).catch(() => undefined);
    await extra.remove().catch(() => undefined);
    for (const id of [1, 2, 3]) await sandbox.start(id);
  });

  it('a stopped broker is broker-fenced at once (process not running), not broker-unreachable; list-endpoints agrees; started again, the finding clears', async () => {
    const t0 = Date.now();
    expect(await sandbox.stop(3)).toBe('stopped');
    try {
      await stoppedBrokerIsFenced(t0);
    } finally {
      await sandbox.start(3);
    }
    const back = await diagnoseUntil('broker 3 unfenced', (r) => about(r, 'broker-fenced', 3).length === 0 && about(r, 'broker-unreachable', 3).length === 0, 120_000);
    expect(kindsOf(back).filter((k) => k.startsWith('broker-'))).toEqual([]);
    expect((await listEndpoints(settings, bootstrap)).get(3)).toBe('unfenced');
  });

  async function stoppedBrokerIsFenced(t0: number): Promise<void> {
    const report = await diagnoseUntil('broker 3 fenced', (r) => about(r, 'broker-fenced', 3).length > 0, 60_000);
    console.log(`[fenced] stopped broker 3 reported fenced ${elapsed(t0)} after the stop`);
    const [f] = about(report, 'broker-fenced', 3);
    expect(about(report, 'broker-unreachable', 3)).toEqual([]);
    expect(f!.title).toMatch(/^Broker 3 is registered but fenced: its process is not running \(\d+ replicas assigned to it\)$/);
    expect(f!.summary).toMatch(/Its \d+ replicas are out of every ISR while it is fenced/);
    expect(f!.severity).toBe('error');
    expect(f!.evidence.find((e) => e.label === 'registration')?.value).toMatch(/^broker 3 at 127\.0\.0\.1:\d+: registered, fenced$/);
    expect(f!.evidence.find((e) => e.label === 'process')?.value).toBe('not running');
    // It holds replicas: started, or drained before any unregister; never the unregister command itself.
    expect(f!.nextActions.join('\n')).toMatch(/\/kafka drain 3/);
    expect(f!.nextActions.join('\n')).not.toMatch(/kafka-cluster\.sh unregister/);
    expect(report.skippedChecks.join('\n')).not.toMatch(/Fenced brokers/);
    // Kafka's own tool: 3 registered and fenced, 1 and 2 unfenced; without --include-fenced-brokers 3 is not listed.
    const tool = Object.fromEntries(await listEndpoints(settings, bootstrap));
    expect(tool).toMatchObject({ 1: 'unfenced', 2: 'unfenced', 3: 'fenced' });
    // Our DescribeCluster v2 read says the same of every registered broker.
    const snap = await takeSnapshot(connection, { topics: [held], timeoutMs: 20_000 });
    console.log(`[fenced] DescribeCluster v2: ${JSON.stringify(snap.registeredBrokers)}`);
    expect(snap.registeredBrokers?.status).toBe('read');
    expect(Object.fromEntries(snap.registeredBrokers!.brokers.map((b) => [b.id, b.fenced ? 'fenced' : 'unfenced']))).toEqual(tool);
    expect(snap.brokers.map((b) => b.id)).toEqual([1, 2]);
    expect(await kafkaCluster(settings, ['list-endpoints', '--bootstrap-server', bootstrap])).not.toMatch(/^3\s/m);
  }

  it('a killed broker is fenced once its broker session times out (9 s by default); until then the diagnosis says its process is gone, not a network path', async () => {
    expect((await listEndpoints(settings, bootstrap)).get(3)).toBe('unfenced');
    expect(await sandbox.kill(3)).toBe('killed');
    const t0 = Date.now();
    try {
      await killedBrokerIsFenced(t0);
    } finally {
      await sandbox.start(3);
    }
    await diagnoseUntil('broker 3 unfenced', (r) => about(r, 'broker-fenced', 3).length === 0 && about(r, 'broker-unreachable', 3).length === 0, 120_000);
  });

  async function killedBrokerIsFenced(t0: number): Promise<void> {
    // Right after the kill the controller still counts broker 3 unfenced: whatever the diagnosis says then, it
    // is no "path between us and it" story while its host says the process is gone.
    const early = await diagnose();
    const unfencedThen = early.findings.find((f) => f.kind === 'broker-unreachable' && f.affected.brokers.includes(3));
    console.log(`[fenced] diagnosis ${elapsed(t0)} after the kill: ${kindsOf(early).join('; ')}`);
    if (unfencedThen) {
      expect(unfencedThen.title).toBe("Broker 3's process is not running; the controller has not fenced it yet");
      expect(unfencedThen.summary).not.toMatch(/not a stopped process/);
    }
    const seen: string[] = [];
    let fencedAfter = -1;
    for (let i = 0; i < 40 && fencedAfter < 0; i++) {
      const states = await listEndpoints(settings, bootstrap);
      seen.push(`${elapsed(t0)}: ${states.get(3)}`);
      if (states.get(3) === 'fenced') fencedAfter = Date.now() - t0;
      else await sleep(500);
    }
    console.log(`[fenced] killed broker 3, list-endpoints: ${seen.join(', ')}`);
    expect(fencedAfter, seen.join(', ')).toBeGreaterThan(0);
    expect(fencedAfter).toBeLessThan(60_000);
    const report = await diagnoseUntil('broker 3 fenced', (r) => about(r, 'broker-fenced', 3).length > 0, 60_000);
    expect(about(report, 'broker-unreachable', 3)).toEqual([]);
    expect(about(report, 'broker-fenced', 3)[0]!.evidence.find((e) => e.label === 'process')?.value).toBe('not running');
  }

  it('a broker holding no replica whose process is gone: the unregister command, which unregisters it; started again, it registers again', async () => {
    await extra.start();
    await waitFor('broker 4 registered and unfenced', async () => (await listEndpoints(settings, bootstrap)).get(4) === 'unfenced', 60_000);
    await extra.stop();
    const report = await diagnoseUntil('broker 4 fenced', (r) => about(r, 'broker-fenced', 4).length > 0, 60_000);
    const [f] = about(report, 'broker-fenced', 4);
    expect(f!.severity).toBe('warning');
    expect(f!.title).toMatch(/^Broker 4 is registered but fenced and not heartbeating \(no replica assigned to it\)$/);
    // The sandbox's host access covers brokers 1-3 only: whether 4's process runs is not known, and said.
    expect(f!.evidence.find((e) => e.label === 'process')?.value).toBe('not checked (no host target for broker 4)');
    const action = f!.nextActions.find((a) => a.includes('kafka-cluster.sh unregister'));
    expect(action, f!.nextActions.join('\n')).toBeDefined();
    const command = /kafka-cluster\.sh (unregister --bootstrap-server \S+ --id 4)/.exec(action!)![1]!.split(' ');
    expect(command).toEqual(['unregister', '--bootstrap-server', expect.stringMatching(/^127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+)*$/), '--id', '4']);
    expect((await listEndpoints(settings, bootstrap)).get(4)).toBe('fenced');

    // The command as the finding gives it.
    await kafkaCluster(settings, command);
    await waitFor('broker 4 no longer registered', async () => !(await listEndpoints(settings, bootstrap)).has(4), 30_000);
    const after = await diagnose();
    expect(about(after, 'broker-fenced', 4)).toEqual([]);
    expect(about(after, 'broker-unreachable', 4)).toEqual([]);

    // Unregistering is not forever: the same broker started again registers again.
    await extra.start();
    await waitFor('broker 4 registered again', async () => (await listEndpoints(settings, bootstrap)).get(4) === 'unfenced', 60_000);
    await extra.stop();
    await kafkaCluster(settings, ['unregister', '--bootstrap-server', bootstrap, '--id', '4']);
    await waitFor('broker 4 unregistered for good', async () => !(await listEndpoints(settings, bootstrap)).has(4), 30_000);
  });
});

describe.skipIf(!up || !kraft4)('an open transaction whose coordinator has no leader, after an unclean election', { timeout: 600_000 }, () => {
  const topic = 'txn-unresolved';
  let admin: KafkaAdmin;
  /** The coordinator's __transaction_state partition and the replicas it had before the test narrowed them. */
  let coordinator: { partition: number; replicas: number[] } | null = null;
  const tool = (script: string, args: string[]) => kafkaTool(bin, script, ['--bootstrap-server', bootstrap, ...args], 120_000);
  const partitionOf = async (t: string, p: number) => (await admin.metadata([t])).topicMetadata.find((x) => x.topic === t)?.partitionMetadata.find((x) => x.partitionId === p);

  beforeAll(async () => {
    admin = await openAdmin(connection, { timeoutMs: 15_000 });
  });
  afterAll(async () => {
    for (const id of [1, 2, 3]) await sandbox.start(id);
    if (coordinator) await reassign(TXN_STATE, coordinator.partition, coordinator.replicas).catch((err: unknown) => console.error(`[txn] restoring ${TXN_STATE}-${coordinator!.partition}: ${String(err)}`));
    await tool('kafka-configs.sh', ['--alter', '--entity-type', 'topics', '--entity-name', TXN_STATE, '--delete-config', 'min.insync.replicas']).catch(() => undefined);
    await withAdmin(bootstrap, (a) => a.deleteTopics({ topics: [topic], timeout: 30_000 })).catch(() => undefined);
    await admin?.close();
  });

  async function reassign(t: string, partition: number, replicas: number[]): Promise<void> {
    const plan = JSON.stringify({ version: 1, partitions: [{ topic: t, partition, replicas }] });
    const file = join(settings.home, `reassign-${t}-${partition}.json`);
    await writeFile(file, plan);
    try {
      await tool('kafka-reassign-partitions.sh', ['--execute', '--reassignment-json-file', file]);
    } finally {
      await rm(file, { force: true });
    }
    await waitFor(`${t}-${partition} on ${replicas.join(',')}`, async () => (await partitionOf(t, partition))?.replicas.join(',') === replicas.join(','), 120_000);
  }

  it('transaction-unresolved names the open transaction and the leaderless coordinator partition; describe-producers agrees; with the old leader back it is hanging-transaction', async () => {
    const t0 = Date.now();
    // __transaction_state exists once a transactional producer has asked for a coordinator.
    const starter = kafkaClient(bootstrap, 'txn-unresolved-starter').producer({ transactionalId: 'txn-unresolved-starter', idempotent: true, maxInFlightRequests: 1 });
    await starter.connect();
    await (await starter.transaction()).abort();
    await starter.disconnect();
    await waitFor(`${TXN_STATE} led everywhere`, async () => {
      const ps = (await admin.metadata([TXN_STATE])).topicMetadata[0]?.partitionMetadata ?? [];
      return ps.length > 0 && ps.every((p) => p.leader >= 0);
    }, 120_000);
    // The coordinator writes alone while broker 3 is stopped.
    await tool('kafka-configs.sh', ['--alter', '--entity-type', 'topics', '--entity-name', TXN_STATE, '--add-config', 'min.insync.replicas=1']);
    await withAdmin(bootstrap, async (a) => {
      if ((await a.listTopics()).includes(topic)) await a.deleteTopics({ topics: [topic] });
      await createTopic(a, topic, { assignment: [[1, 3]], configs: { 'min.insync.replicas': '1' } });
    });
    // A transactional id coordinated on broker 1, whose __transaction_state partition then lives on broker 1 alone:
    // when broker 1 is lost that partition (and no other) has no leader, as with a coordinator whose followers lagged.
    const state = (await admin.metadata([TXN_STATE])).topicMetadata[0]!.partitionMetadata;
    const transactionalId = Array.from({ length: 500 }, (_, i) => `txn-unresolved-${i}`).find((id) => state.find((p) => p.partitionId === offsetsPartitionFor(id, state.length))?.leader === 1)!;
    const p = state.find((x) => x.partitionId === offsetsPartitionFor(transactionalId, state.length))!;
    coordinator = { partition: p.partitionId, replicas: p.replicas };
    await reassign(TXN_STATE, p.partitionId, [1]);

    const producer = kafkaClient(bootstrap, 'txn-unresolved-producer').producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 60_000 });
    await producer.connect();
    const first = await producer.transaction();
    await first.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ partition: 0, value: `committed ${i}` })) });
    await first.commit();
    // Offsets 11-20 reach both replicas (acks=all); only broker 1 gets the COMMIT marker.
    const last = await producer.transaction();
    await last.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ partition: 0, value: `last ${i}` })) });
    await sandbox.stop(3);
    await waitFor(`ISR of ${topic}-0 = [1]`, async () => (await partitionOf(topic, 0))?.isr.join(',') === '1');
    await last.commit();
    await producer.disconnect();
    await waitFor('the coordinator completed the commit', async () => (await admin.describeTransactions([transactionalId]))[0]?.state === 'CompleteCommit', 30_000);
    // The leader with the ISR of one dies; the follower comes back out of the ISR; an unclean election puts it in charge.
    await sandbox.kill(1);
    await sandbox.start(3);
    await waitFor(`${topic}-0 and ${TXN_STATE}-${p.partitionId} leaderless`, async () => (await partitionOf(topic, 0))?.leader === -1 && (await partitionOf(TXN_STATE, p.partitionId))?.leader === -1, 120_000);
    await tool('kafka-leader-election.sh', ['--election-type', 'unclean', '--topic', topic, '--partition', '0']);
    await waitFor(`${topic}-0 led by broker 3`, async () => (await partitionOf(topic, 0))?.leader === 3, 60_000);
    console.log(`[txn] outage made: ${elapsed(t0)}`);

    const report = await runDiagnosis({ cluster: 'sandbox', connection, topic, timeoutMs: 30_000, lagWindowMs: 0 });
    const unresolved = report.findings.filter((f) => f.kind === 'transaction-unresolved');
    expect(unresolved, JSON.stringify(report.findings.map((f) => [f.kind, f.title]))).toHaveLength(1);
    const f = unresolved[0]!;
    console.log(`[txn] ${f.title}\n${f.summary}\n${f.evidence.map((e) => `  ${e.label}: ${e.value}`).join('\n')}\n  next: ${f.nextActions.join(' | ')}`);
    expect(report.findings.filter((x) => x.kind === 'hanging-transaction' || x.kind === 'lso-stalled')).toEqual([]);
    expect(f.title).toBe(`Open transaction on ${topic}-0 from offset 11 holds the LSO; its coordinator cannot be asked yet`);
    expect(f.affected).toMatchObject({ partitions: [{ topic, partition: 0 }], brokers: [3] });
    expect(f.summary).toContain(`its coordinator's partition ${TXN_STATE}-${p.partitionId} has no leader`);
    const ev = Object.fromEntries(f.evidence.map((e) => [e.label, e.value]));
    expect(ev['offsets']).toBe('LSO 11, high watermark 21 (10 records behind)');
    expect(ev[`${TXN_STATE} without a leader`]).toBe(`${TXN_STATE}-${p.partitionId}: no leader, replicas 1 (1 down)`);
    expect(f.nextActions[0]).toMatch(new RegExp(`^Give ${TXN_STATE}-${p.partitionId} a leader: bring back broker 1\\.`));
    expect(f.nextActions.join('\n')).not.toMatch(/abort-transaction/);
    const producerId = /producer (\d+) epoch/.exec(ev['open transaction']!)![1]!;

    // Kafka's own tool, at the new leader: the same producer, its transaction open from offset 11.
    const described = await tool('kafka-transactions.sh', ['describe-producers', '--topic', topic, '--partition', '0']);
    console.log(`[txn] describe-producers:\n${described.trim()}`);
    const [header, ...rows] = described.trim().split('\n').map((l) => l.trim().split(/\s+/));
    const row = rows.find((r) => r[header!.indexOf('ProducerId')] === producerId);
    expect(row, described).toBeDefined();
    expect(row![header!.indexOf('CurrentTransactionStartOffset')]).toBe('11');

    // The old leader returns: its coordinator loads the partition, which says the transaction was completed: hanging.
    await sandbox.start(1);
    const t1 = Date.now();
    let after: DiagnosisReport | null = null;
    for (let i = 0; i < 30; i++) {
      after = await runDiagnosis({ cluster: 'sandbox', connection, topic, timeoutMs: 30_000, lagWindowMs: 0 });
      if (after.findings.some((x) => x.kind === 'hanging-transaction')) break;
      await sleep(2_000);
    }
    console.log(`[txn] hanging-transaction ${elapsed(t1)} after broker 1 started: ${after!.findings.find((x) => x.kind === 'hanging-transaction')?.summary}`);
    const hanging = after!.findings.filter((x) => x.kind === 'hanging-transaction');
    expect(hanging, JSON.stringify(after!.findings.map((x) => [x.kind, x.title]))).toHaveLength(1);
    expect(after!.findings.filter((x) => x.kind === 'transaction-unresolved')).toEqual([]);
    expect(hanging[0]!.title).toBe(`Hanging transaction on ${topic}-0 from offset 11`);
    expect(hanging[0]!.evidence.find((e) => e.label === 'coordinator')?.value).toMatch(new RegExp(`^transactional id ${transactionalId} at coordinator broker 1: CompleteCommit, producer ${producerId} epoch \\d+, not ongoing on ${topic}-0$`));
    console.log(`[txn] whole test: ${elapsed(t0)}`);
  });
});
