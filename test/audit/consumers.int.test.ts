// Consumer findings on the real sandbox: a group that retention passed, a
// group committed beyond the new end after a leaderless partition is rescued
// by an unclean election, a stalled consumer; and our numbers against
// kafka-consumer-groups.sh --describe on the same cluster.

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig, splitBootstrap } from '../../lib/kafka/connection.ts';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { resolveClusterTarget } from '../../lib/diagnose/cli-support.ts';
import { sandboxTarget } from '../../lib/cli/sandbox-target.ts';
import { diagnosisInputFor, runDiagnosis } from '../../lib/diagnose/run.ts';
import { consumerView } from '../../lib/diagnose/checks/consumer-view.ts';
import type { Finding } from '../../lib/diagnose/types.ts';
import { testSandbox } from '../sandbox/helpers.ts';

const exec = promisify(execFile);
const bootstrap = process.env.KAFKA_BOOTSTRAP_SERVERS ?? '';
const kafkaBin = process.env.KAFKA_BIN ?? '';
const ready = Boolean(bootstrap && kafkaBin && process.env.KR_SANDBOX_HOME && !process.env.KR_SKIP_SANDBOX);
const connection = () => parseConnectionConfig({ bootstrap: splitBootstrap(bootstrap) });
const kafka = new Kafka({ clientId: 'consumers-int', brokers: splitBootstrap(bootstrap), logLevel: logLevel.NOTHING });

const tool = async (script: string, args: string[]) => (await exec(join(kafkaBin, script), ['--bootstrap-server', bootstrap, ...args], { timeout: 90_000, maxBuffer: 16 * 1024 * 1024 })).stdout;

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function produce(topic: string, n: number, from = 0): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (let i = 0; i < n; i += 100) {
      await producer.send({ topic, acks: -1, messages: Array.from({ length: Math.min(100, n - i) }, (_, j) => ({ key: null, value: `m-${from + i + j}` })) });
    }
  } finally {
    await producer.disconnect();
  }
}

async function commit(group: string, topic: string, offset: number): Promise<void> {
  const admin = await openAdmin(connection(), { timeoutMs: 20_000 });
  try {
    // The first FindCoordinator of a fresh cluster creates __consumer_offsets: retry until it is led.
    await waitFor(`commit of ${group}`, async () => {
      const r = await admin.commitOffsets(group, [{ topic, partition: 0, offset }]).catch(() => null);
      return r?.[0]?.errorCode === 0;
    });
  } finally {
    await admin.close();
  }
}

/** kafka-consumer-groups.sh --describe: TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG per row. */
async function describeGroup(group: string): Promise<Map<string, { current: number; end: number; lag: number }>> {
  const out = await tool('kafka-consumer-groups.sh', ['--describe', '--group', group]);
  const rows = new Map<string, { current: number; end: number; lag: number }>();
  const lines = out.split('\n').filter((l) => l.trim());
  const head = lines.findIndex((l) => /\bCURRENT-OFFSET\b/.test(l));
  const cols = lines[head]!.trim().split(/\s+/);
  for (const l of lines.slice(head + 1)) {
    const f = l.trim().split(/\s+/);
    const get = (c: string) => f[cols.indexOf(c)]!;
    rows.set(`${get('TOPIC')}-${get('PARTITION')}`, { current: Number(get('CURRENT-OFFSET')), end: Number(get('LOG-END-OFFSET')), lag: Number(get('LAG')) });
  }
  return rows;
}

/** Our view of the same group, from one snapshot. */
async function ourView(group: string) {
  const s = await takeSnapshot(connection(), { timeoutMs: 20_000 });
  const g = consumerView(s).groups.find((x) => x.group.groupId === group);
  return new Map((g?.partitions ?? []).map((p) => [`${p.topic}-${p.partition}`, { current: p.committed, end: p.end!, lag: p.end! - p.committed }]));
}

async function diagnose(lagWindowMs = 0): Promise<Finding[]> {
  const target = await resolveClusterTarget({}, process.env, sandboxTarget);
  return (await runDiagnosis({ ...diagnosisInputFor(target), hostTargets: [], executor: null, lagWindowMs })).findings;
}

/** The group's finding of this kind, once a diagnosis has it (the group's coordinator and the partition's leader may take a moment to agree). */
async function findingFor(kind: Finding['kind'], group: string): Promise<Finding | undefined> {
  let f: Finding | undefined;
  await waitFor(`a ${kind} finding for ${group}`, async () => {
    f = (await diagnose()).find((x) => x.kind === kind && x.affected.groups.includes(group));
    return f !== undefined;
  }, 60_000).catch(() => undefined);
  return f;
}

describe.skipIf(!ready)('consumer findings on the sandbox', () => {
  const topics = ['cg-retention', 'cg-stall', 'cg-truncate'];
  const dropTopics = async () => {
    for (const t of topics) await tool('kafka-topics.sh', ['--delete', '--if-exists', '--topic', t]).catch(() => '');
  };
  // Files run in no fixed order and some leave a broker down: every node up first (its groups' coordinators with it).
  beforeAll(async () => {
    await testSandbox().up();
    await dropTopics();
  }, 300_000);
  afterAll(dropTopics, 120_000);

  it('a group that retention passed: consumer-offset-below-log-start with the messages skipped, numbers as kafka-consumer-groups.sh', async () => {
    await tool('kafka-topics.sh', ['--create', '--topic', 'cg-retention', '--partitions', '1', '--replication-factor', '3', '--config', 'retention.ms=3000', '--config', 'segment.ms=1000']);
    await produce('cg-retention', 200);
    await commit('cg-behind', 'cg-retention', 10);
    // A later write rolls the first segment (segment.ms passed); retention then deletes it.
    await new Promise((r) => setTimeout(r, 1500));
    await produce('cg-retention', 50, 200);
    await waitFor('log start of cg-retention-0 past 10', async () => {
      const out = await tool('kafka-get-offsets.sh', ['--topic', 'cg-retention', '--time', '-2']);
      return Number(/cg-retention:0:(\d+)/.exec(out)?.[1] ?? 0) > 10;
    }, 90_000);
    const start = Number(/cg-retention:0:(\d+)/.exec(await tool('kafka-get-offsets.sh', ['--topic', 'cg-retention', '--time', '-2']))![1]);

    const f = await findingFor('consumer-offset-below-log-start', 'cg-behind');
    expect(f, 'below-log-start finding').toBeDefined();
    expect(f!.affected.partitions).toEqual([{ topic: 'cg-retention', partition: 0 }]);
    expect(f!.title).toContain(`lost ${start - 10} messages`);
    expect(f!.title).toContain('(classic protocol, Empty, 0 members)');

    const [ours, theirs] = [await ourView('cg-behind'), await describeGroup('cg-behind')];
    expect(ours).toEqual(theirs);
  }, 240_000);

  it('a stalled consumer (member present, no commits, end moving): consumer-lag STALLED; numbers as kafka-consumer-groups.sh', async () => {
    await tool('kafka-topics.sh', ['--create', '--topic', 'cg-stall', '--partitions', '2', '--replication-factor', '3']);
    await produce('cg-stall', 100);
    await commit('cg-stalled', 'cg-stall', 5);
    const consumer = kafka.consumer({ groupId: 'cg-stalled', sessionTimeout: 30_000 });
    const producer = kafka.producer();
    let writing = true;
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: 'cg-stall' });
      // Reads, never commits: the poll loop runs, the committed offset stays.
      await consumer.run({ autoCommit: false, eachMessage: async () => {} });
      await waitFor('cg-stalled Stable with a member', async () => / Stable|Stable/.test(await tool('kafka-consumer-groups.sh', ['--describe', '--group', 'cg-stalled', '--state'])));
      await producer.connect();
      const writer = (async () => {
        for (let i = 0; writing && i < 400; i++) {
          await producer.send({ topic: 'cg-stall', messages: [{ partition: 0, value: `w-${i}` }] });
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const findings = await diagnose(3000);
      writing = false;
      await writer;
      const f = findings.find((x) => x.kind === 'consumer-lag' && x.affected.groups.includes('cg-stalled'));
      expect(f, 'consumer-lag finding').toBeDefined();
      expect(f!.title).toContain('STALLED');
      expect(f!.title).toContain('(classic protocol, Stable, 1 member)');
      expect(f!.affected.partitions).toContainEqual({ topic: 'cg-stall', partition: 0 });

      // With writes stopped, both tools read the same committed and end offsets.
      const [ours, theirs] = [await ourView('cg-stalled'), await describeGroup('cg-stalled')];
      expect(ours.get('cg-stall-0')).toEqual(theirs.get('cg-stall-0'));
      expect(ours.get('cg-stall-0')!.current).toBe(5);
    } finally {
      writing = false;
      await producer.disconnect().catch(() => {});
      await consumer.disconnect().catch(() => {});
    }
  }, 240_000);

  it('after a leaderless partition is rescued onto a replica with less data, a group committed beyond the new end: consumer-offset-above-log-end', async () => {
    // The failure this rescues: the follower drops out of the ISR, the sole in-sync leader keeps
    // taking writes that a group reads and commits, then the leader is killed (kill -9).
    const sandbox = testSandbox();
    await tool('kafka-topics.sh', ['--create', '--topic', 'cg-truncate', '--replica-assignment', '1:2', '--config', 'min.insync.replicas=1', '--config', 'unclean.leader.election.enable=false']);
    try {
      await produce('cg-truncate', 1_000);
      await sandbox.stop(2);
      await produce('cg-truncate', 500, 1_000);
      // The group's coordinator may have lived on the broker just stopped: it moves within seconds.
      await commit('cg-truncated', 'cg-truncate', 1_400);
      await sandbox.kill(1);
      await sandbox.start(2);
      await waitFor('cg-truncate-0 leaderless', async () => /Leader: (none|-1)\b/.test(await tool('kafka-topics.sh', ['--describe', '--topic', 'cg-truncate'])), 120_000);
      // The rescue: the out-of-sync replica is put in charge, with the 1,000 messages it holds.
      await tool('kafka-leader-election.sh', ['--election-type', 'unclean', '--topic', 'cg-truncate', '--partition', '0']);
      await waitFor('cg-truncate-0 led by broker 2', async () => /Leader: 2\b/.test(await tool('kafka-topics.sh', ['--describe', '--topic', 'cg-truncate'])));
      const end = Number(/cg-truncate:0:(\d+)/.exec(await tool('kafka-get-offsets.sh', ['--topic', 'cg-truncate', '--time', '-1']))![1]);
      expect(end).toBe(1_000);

      const f = await findingFor('consumer-offset-above-log-end', 'cg-truncated');
      expect(f, 'above-log-end finding').toBeDefined();
      expect(f!.title).toContain(`committed ${1_400 - end} offsets past the log end`);
      expect(f!.title).toContain('(classic protocol, Empty, 0 members)');
      expect(f!.affected.partitions).toEqual([{ topic: 'cg-truncate', partition: 0 }]);
      expect(f!.runbook).toBeTruthy();

      const [ours, theirs] = [await ourView('cg-truncated'), await describeGroup('cg-truncated')];
      expect(theirs.get('cg-truncate-0')).toMatchObject({ current: 1_400, end });
      expect(ours.get('cg-truncate-0')).toMatchObject({ current: 1_400, end });
    } finally {
      await sandbox.start(1);
      await sandbox.start(2);
    }
  }, 480_000);
});
