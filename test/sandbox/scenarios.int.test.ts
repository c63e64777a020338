// Every scenario must produce its incident's symptom as Kafka itself reports it.
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kafkaTool } from '../../sandbox/client.ts';
import { runScenario, type ScenarioResult } from '../../sandbox/scenarios.ts';
import { hasSandbox, kafkaTopicsDescribe, kafkaTopicsFilter, testSandbox } from './helpers.ts';

const sandbox = testSandbox();
const timings: Record<string, number> = {};

async function scenario(name: string): Promise<ScenarioResult> {
  const result = await runScenario(sandbox, name);
  timings[name] = result.durationMs;
  return result;
}

/** Kafka writes some lines a moment after the symptom (a reload's "Finished loading"): each is waited for, up to two minutes. */
async function expectServerLog(result: ScenarioResult) {
  for (const entry of result.expect.serverLog ?? []) {
    const deadline = Date.now() + 120_000;
    let text = await readFile(entry.file, 'utf8');
    while (!entry.contains.every((needle) => text.includes(needle)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      text = await readFile(entry.file, 'utf8');
    }
    for (const needle of entry.contains) expect(text, `${entry.file} should contain "${needle}"`).toContain(needle);
  }
}

/** Messages a replica holds, counted by Kafka's own kafka-dump-log.sh over its segment files. */
async function messagesOnReplica(broker: number, topic: string, partition: number): Promise<number> {
  const dir = join(sandbox.broker(broker).dataDir, `${topic}-${partition}`);
  if (!existsSync(dir)) return 0;
  const logs = (await readdir(dir)).filter((f) => f.endsWith('.log')).map((f) => join(dir, f));
  if (!logs.length) return 0;
  const out = await kafkaTool(sandbox.binDir, 'kafka-dump-log.sh', ['--files', logs.join(',')]);
  return [...out.matchAll(/ count: (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

describe.skipIf(!hasSandbox())('sandbox scenarios on a real cluster', () => {
  it('rf1-broker-down: the stopped broker\'s partitions are unavailable, exactly as kafka-topics.sh says', async () => {
    const r = await scenario('rf1-broker-down');
    expect(r.brokers.stopped).toEqual([3]);
    expect(await kafkaTopicsFilter(sandbox, '--unavailable-partitions', r.topics)).toEqual(r.expect.unavailablePartitions);
    expect(await kafkaTopicsFilter(sandbox, '--under-min-isr-partitions', r.topics)).toEqual(r.expect.underMinIsrPartitions);
    expect(await kafkaTopicsFilter(sandbox, '--under-replicated-partitions', r.topics)).toEqual(r.expect.underReplicatedPartitions);
    expect(r.expect.unavailablePartitions).toEqual(['logs-rf1:2', 'logs-rf1:5']);
    const described = await kafkaTopicsDescribe(sandbox, 'logs-rf1');
    expect(described.filter((p) => p.leader === -1).map((p) => p.replicas)).toEqual([[3], [3]]);
  });

  it('isr-one-leader-lost: leaderless partition whose live replicas hold different amounts of data', async () => {
    const r = await scenario('isr-one-leader-lost');
    expect(await kafkaTopicsFilter(sandbox, '--unavailable-partitions', r.topics)).toEqual(['orders:0']);
    const [p] = await kafkaTopicsDescribe(sandbox, 'orders');
    expect(p).toMatchObject({ leader: -1, replicas: [1, 2, 3] });
    expect(p!.isr).not.toContain(2);
    expect(p!.isr).not.toContain(3);
    // What each replica holds, counted by kafka-dump-log.sh, is what the scenario reported.
    for (const broker of [1, 2, 3]) {
      expect(await messagesOnReplica(broker, 'orders', 0)).toBe(r.expect.messagesPerReplica![String(broker)]);
    }
    expect(r.expect.messagesPerReplica!['3']).toBeGreaterThan(r.expect.messagesPerReplica!['2']!);
    expect(r.expect.defaultUncleanLeader).toBe(2);
    expect(r.brokers.wiped).toEqual([1]);
  });

  it('unclean-restart: no clean-shutdown marker, log recovery in server.log', async () => {
    const r = await scenario('unclean-restart');
    expect(r.brokers.killed).toEqual([2]);
    await expectServerLog(r);
    // Back up and replicating again after recovery.
    expect(await kafkaTopicsFilter(sandbox, '--unavailable-partitions', r.topics)).toEqual([]);
  });

  it('corrupt-index: the next start logs Kafka\'s corrupted-index warning and rebuilds', async () => {
    const r = await scenario('corrupt-index');
    await expectServerLog(r);
    const log = await readFile(r.expect.serverLog![0]!.file, 'utf8');
    expect(log).toMatch(/WARN .*Found a corrupted index file corresponding to log file .*clicks-0.*, recovering segment and rebuilding index files/);
  });

  it('missing-segments: a partition dir without segments under a stopped broker', async () => {
    const r = await scenario('missing-segments');
    const dir = r.expect.partitionDirsWithoutSegments![0]!.dirs[0]!;
    expect(existsSync(dir)).toBe(true);
    expect((await readdir(dir)).filter((f) => f.endsWith('.log'))).toEqual([]);
    expect(await kafkaTopicsFilter(sandbox, '--under-replicated-partitions', r.topics)).toEqual(r.expect.underReplicatedPartitions);
  });

  it('offsets-loading: many __consumer_offsets segments; groups see load-in-progress / not-coordinator while it reloads', async () => {
    const r = await scenario('offsets-loading');
    const co = r.expect.consumerOffsets!;
    for (const count of Object.values(co.segmentsPerBroker)) expect(count).toBeGreaterThan(50);
    const errors = r.expect.groupErrorsSeen ?? {};
    expect((errors.GROUP_LOAD_IN_PROGRESS ?? 0) + (errors.NOT_COORDINATOR_FOR_GROUP ?? 0) + (errors.GROUP_COORDINATOR_NOT_AVAILABLE ?? 0)).toBeGreaterThan(0);
    await expectServerLog(r);
    const log = await readFile(r.expect.serverLog![0]!.file, 'utf8');
    expect(log).toMatch(new RegExp(`Finished loading (of metadata|offsets and group metadata) from __consumer_offsets-${co.partition} .*in \\d+ ?m`));
    const describe = await kafkaTool(sandbox.binDir, 'kafka-configs.sh', ['--bootstrap-server', sandbox.bootstrapServers, '--describe', '--entity-type', 'topics', '--entity-name', '__consumer_offsets']);
    expect(describe).toContain('min.compaction.lag.ms=86400000');
    // Writes thousands of segments and waits for a reload: about a minute alone, much more on a busy machine.
  }, 300_000);

  it('healthy: back to a clean, fully replicated cluster', async () => {
    const r = await scenario('healthy');
    expect(r.brokers).toEqual({ stopped: [], killed: [], wiped: [], restarted: [] });
    expect(await kafkaTopicsFilter(sandbox, '--unavailable-partitions')).toEqual([]);
    expect(await kafkaTopicsFilter(sandbox, '--under-replicated-partitions')).toEqual([]);
    expect(await kafkaTopicsFilter(sandbox, '--under-min-isr-partitions')).toEqual([]);
    expect((await sandbox.status()).every((s) => s.running)).toBe(true);
    console.log(`scenario timings (ms): ${JSON.stringify(timings)}`);
  });
});
