// lib/kafka/admin.ts against the real sandbox (Kafka 4.1.1, KRaft, brokers 1-3
// and a dedicated controller), with Kafka's own CLI tools as the oracle.
// Needs the sandbox from test/global-setup.ts (skipped with KR_SKIP_SANDBOX=1).
//
// The election tests stop, kill and restart brokers, so they come last; every
// broker is started again in afterAll whatever happened.

import { readFile } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Nodes } from '../../lib/kafka/router/nodes.ts';
import { KafkaAdminError, type KafkaAdmin, type TopicPartition, openAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig, splitBootstrap } from '../../lib/kafka/connection.ts';
import { WireBroker, type RawMetadata } from '../../lib/kafka/wire.ts';
import { createTopic, describeTopic, kafkaClient, kafkaTool, produce, sleep, waitFor, withAdmin } from '../../sandbox/client.ts';
import { readSandboxCluster, sandboxSettings } from '../../sandbox/layout.ts';
import { hasSandbox, testSandbox } from '../sandbox/helpers.ts';

const bootstrap = process.env.KAFKA_BOOTSTRAP_SERVERS ?? '';
const kafkaBin = process.env.KAFKA_BIN ?? '';
const haveSandbox = hasSandbox() && bootstrap !== '' && kafkaBin !== '';

const T = {
  offsets: 'adm-offsets',
  configs: 'adm-configs',
  reassign: 'adm-reassign',
  cancel: 'adm-cancel',
  groups: 'adm-groups',
  elect: 'adm-elect',
} as const;
const TOPICS = Object.values(T);
const GROUP = 'adm-group-a';
const NEW_GROUP = 'adm-group-new';
const THROTTLED = 'leader.replication.throttled.replicas';
const FOLLOWER_THROTTLED = 'follower.replication.throttled.replicas';
const LEADER_RATE = 'leader.replication.throttled.rate';
const FOLLOWER_RATE = 'follower.replication.throttled.rate';

let admin: KafkaAdmin;

const cli = (script: string, args: string[]) => kafkaTool(kafkaBin, script, ['--bootstrap-server', bootstrap, ...args]);

async function partitionMeta(topic: string, partition = 0): Promise<RawMetadata['topicMetadata'][number]['partitionMetadata'][number]> {
  const md = await admin.metadata([topic]);
  const p = md.topicMetadata.find((t) => t.topic === topic)?.partitionMetadata.find((x) => x.partitionId === partition);
  if (!p) throw new Error(`no metadata for ${topic}-${partition}`);
  return p;
}

/** `kafka-configs.sh --describe` → the dynamic configs it lists, name → value. */
async function kafkaConfigs(entityType: 'topics' | 'brokers', name: string): Promise<Record<string, string>> {
  const out = await cli('kafka-configs.sh', ['--describe', '--entity-type', entityType, ...(name === '' ? ['--entity-default'] : ['--entity-name', name])]);
  const configs: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const m = /^\s+([^=\s]+)=(\S*) sensitive=/.exec(line);
    if (m) configs[m[1]!] = m[2]!;
  }
  return configs;
}

/** KRaft applies a config change on the controller first; a broker answers with it a moment later. */
async function dynamicTopicConfig(topic: string, name: string): Promise<string | null> {
  const [d] = await admin.describeConfigs([{ type: 'topic', name: topic, names: [name] }]);
  const e = d!.entries.find((x) => x.name === name);
  return e && !e.isDefault ? e.value : null;
}

async function expectTopicConfig(topic: string, name: string, value: string | null): Promise<void> {
  await waitFor(`${topic} ${name}=${value}`, async () => (await dynamicTopicConfig(topic, name)) === value, 20_000);
  // The CLI may ask a broker that has not applied it yet: give it the same grace.
  await waitFor(`kafka-configs.sh: ${topic} ${name}=${value}`, async () => (await kafkaConfigs('topics', topic))[name] === (value ?? undefined), 30_000);
}

async function alterTopic(topic: string, op: 'set' | 'delete' | 'append' | 'subtract', name: string, value: string | null) {
  const [r] = await admin.incrementalAlterConfigs([{ type: 'topic', name: topic, ops: [{ name, op, value }] }]);
  return r!;
}

/** `kafka-get-offsets.sh --time <t>` → "topic:partition" → offset. */
async function kafkaGetOffsets(topic: string, time: '-1' | '-2'): Promise<Record<string, number>> {
  const out = await cli('kafka-get-offsets.sh', ['--topic', topic, '--time', time]);
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((l) => /^(.+):(\d+):(\d+)$/.exec(l.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [`${m[1]}:${m[2]}`, Number(m[3])]),
  );
}

/** `kafka-consumer-groups.sh --describe` → "topic:partition" → CURRENT-OFFSET ('-' = none). */
async function kafkaGroupOffsets(group: string): Promise<Record<string, string>> {
  const out = await cli('kafka-consumer-groups.sh', ['--describe', '--group', group]);
  const rows: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols[0] === group && cols.length >= 4 && /^\d+$/.test(cols[2]!)) rows[`${cols[1]}:${cols[2]}`] = cols[3]!;
  }
  return rows;
}

async function produceBytes(topic: string, partition: number, messages: number, valueBytes: number): Promise<void> {
  const producer = kafkaClient(bootstrap, 'adm-test-producer').producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    const value = Buffer.alloc(valueBytes, 'x');
    for (let i = 0; i < messages; i += 200) {
      await producer.send({ topic, acks: -1, messages: Array.from({ length: Math.min(200, messages - i) }, () => ({ partition, value })) });
    }
  } finally {
    await producer.disconnect();
  }
}

beforeAll(async () => {
  if (!haveSandbox) return;
  await testSandbox().up();
  await withAdmin(bootstrap, async (a) => {
    const stale = (await a.listTopics()).filter((t) => (TOPICS as readonly string[]).includes(t));
    if (stale.length) {
      await a.deleteTopics({ topics: stale, timeout: 30_000 });
      await waitFor('stale test topics deleted', async () => !(await a.listTopics()).some((t) => stale.includes(t)));
    }
    await createTopic(a, T.offsets, { assignment: [[1, 2, 3], [2, 3, 1], [3, 1, 2]] });
    await createTopic(a, T.configs, { assignment: [[1, 2], [2, 3]] });
    await createTopic(a, T.reassign, { assignment: [[1, 2]] });
    await createTopic(a, T.cancel, { assignment: [[1]] });
    await createTopic(a, T.groups, { assignment: [[1, 2, 3], [2, 3, 1]] });
    await createTopic(a, T.elect, { assignment: [[1, 2, 3]], configs: { 'min.insync.replicas': '1', 'unclean.leader.election.enable': 'false' } });
  });
  admin = await openAdmin(parseConnectionConfig({ bootstrap: bootstrap.split(',') }), { timeoutMs: 20_000 });
});

afterAll(async () => {
  if (!haveSandbox) return;
  // Whatever a failed test left behind: every broker up, no throttle, no test topic.
  await testSandbox().up();
  await admin
    ?.incrementalAlterConfigs([1, 2, 3].map((id) => ({ type: 'broker' as const, name: String(id), ops: [LEADER_RATE, FOLLOWER_RATE].map((name) => ({ name, op: 'delete' as const, value: null })) })))
    .catch(() => {});
  await admin?.close();
  await withAdmin(bootstrap, async (a) => {
    const ours = (await a.listTopics()).filter((t) => (TOPICS as readonly string[]).includes(t));
    if (ours.length) await a.deleteTopics({ topics: ours, timeout: 30_000 });
    await a.deleteGroups([GROUP, NEW_GROUP]).catch(() => {});
  });
});

describe.skipIf(!haveSandbox)('KafkaAdmin on the sandbox', () => {
  it('reads metadata: [] is brokers and controller only, named topics with per-topic errors', async () => {
    const bare = await admin.metadata([]);
    expect(bare.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
    expect(bare.topicMetadata).toEqual([]);
    // KRaft: Metadata names some live broker as "controller" (the quorum controller, node 100, is not a broker).
    expect([1, 2, 3]).toContain(bare.controllerId);

    const md = await admin.metadata([T.offsets, 'adm-no-such-topic']);
    const offsets = md.topicMetadata.find((t) => t.topic === T.offsets)!;
    expect(offsets.partitionMetadata.map((p) => p.replicas)).toEqual([[1, 2, 3], [2, 3, 1], [3, 1, 2]]);
    expect(md.topicMetadata.find((t) => t.topic === 'adm-no-such-topic')?.topicErrorCode).toBe(3);
  });

  it('listOffsets earliest / latest match kafka-get-offsets.sh, per-partition errors kept', async () => {
    await produce(bootstrap, T.offsets, 0, 120, -1);
    await produce(bootstrap, T.offsets, 1, 80, -1);
    // A log start offset above 0 on partition 0, so "earliest" means something.
    await withAdmin(bootstrap, async (a) => {
      await a.fetchTopicMetadata({ topics: [T.offsets] }); // kafkajs needs it loaded first
      await a.deleteTopicRecords({ topic: T.offsets, partitions: [{ partition: 0, offset: '50' }] });
    });

    const tps: TopicPartition[] = [0, 1, 2].map((partition) => ({ topic: T.offsets, partition }));
    const [earliest, latest, cliEarliest, cliLatest] = await Promise.all([
      admin.listOffsets(tps, 'earliest'),
      admin.listOffsets(tps, 'latest'),
      kafkaGetOffsets(T.offsets, '-2'),
      kafkaGetOffsets(T.offsets, '-1'),
    ]);
    expect(Object.fromEntries(earliest.map((o) => [`${o.topic}:${o.partition}`, o.offset]))).toEqual(cliEarliest);
    expect(Object.fromEntries(latest.map((o) => [`${o.topic}:${o.partition}`, o.offset]))).toEqual(cliLatest);
    expect(earliest.map((o) => o.offset)).toEqual([50, 0, 0]);
    expect(latest.map((o) => o.offset)).toEqual([120, 80, 0]);
    expect(latest.every((o) => o.errorCode === 0 && o.error === null)).toBe(true);

    const missing = await admin.listOffsets([{ topic: T.offsets, partition: 9 }, { topic: 'adm-no-such-topic', partition: 0 }, { topic: T.offsets, partition: 1 }], 'latest');
    expect(missing.map((o) => [o.errorCode, o.offset])).toEqual([[3, null], [3, null], [0, 80]]);
    expect(missing[0]!.error).toMatch(/^UNKNOWN_TOPIC_OR_PARTITION/);
  });

  it('known leaders route ListOffsets without Metadata, a leader that moved is asked again after fresh Metadata; DescribeProducers always asks', async () => {
    const tps: TopicPartition[] = [0, 1, 2].map((partition) => ({ topic: T.offsets, partition }));
    const md = await admin.metadata([T.offsets]);
    const leaderOf = new Map(md.topicMetadata[0]!.partitionMetadata.map((p) => [p.partitionId, p.leader]));
    const expected = await admin.listOffsets(tps, 'latest');
    const key = (p: number) => `${T.offsets}\u0000${p}`;
    const metadataCalls = vi.spyOn(Nodes.prototype, 'freshMetadata');
    try {
      for (const [wrong, calls] of [[false, 0], [true, 1]] as const) {
        // Wrong: each partition's "leader" is the next broker, a follower that answers NOT_LEADER_OR_FOLLOWER.
        const knownLeaders = new Map(tps.map((tp) => [key(tp.partition), wrong ? (leaderOf.get(tp.partition)! % 3) + 1 : leaderOf.get(tp.partition)!]));
        const hinted = await openAdmin(parseConnectionConfig({ bootstrap: bootstrap.split(',') }), { timeoutMs: 20_000, knownLeaders });
        try {
          metadataCalls.mockClear();
          expect((await hinted.listOffsets(tps, 'latest')).map((o) => [o.partition, o.offset, o.errorCode])).toEqual(expected.map((o) => [o.partition, o.offset, 0]));
          expect(metadataCalls.mock.calls.length, wrong ? 'retried after fresh Metadata' : 'no Metadata asked').toBe(calls);
          // Any replica answers DescribeProducers, from its own state: it always asks Metadata for the leaders.
          metadataCalls.mockClear();
          expect((await hinted.describeProducers(tps)).map((p) => [p.partition, p.errorCode, p.leader])).toEqual(tps.map((tp) => [tp.partition, 0, leaderOf.get(tp.partition)]));
          expect(metadataCalls.mock.calls.length).toBe(1);
        } finally {
          await hinted.close();
        }
      }
    } finally {
      metadataCalls.mockRestore();
    }
  });

  it('describeLogDirs matches kafka-log-dirs.sh; a broker not in the cluster is reported, not thrown', async () => {
    const parts = [0, 1, 2].map((partition) => ({ topic: T.offsets, partition }));
    const [dirs, cliOut] = await Promise.all([
      admin.describeLogDirs([1, 2, 3, 7], parts),
      cli('kafka-log-dirs.sh', ['--describe', '--broker-list', '1,2,3', '--topic-list', T.offsets]),
    ]);
    const json = JSON.parse(cliOut.split('\n').find((l) => l.startsWith('{'))!) as {
      brokers: { broker: number; logDirs: { logDir: string; error: string | null; partitions: { partition: string; size: number; offsetLag: number; isFuture: boolean }[] }[] }[];
    };
    const fromCli = json.brokers.flatMap((b) =>
      b.logDirs.flatMap((d) => d.partitions.map((p) => ({ broker: b.broker, path: d.logDir, replica: p.partition, size: p.size, offsetLag: p.offsetLag, isFuture: p.isFuture }))),
    );
    const ours = [1, 2, 3].flatMap((broker) =>
      dirs.get(broker)!.logDirs.flatMap((d) =>
        d.partitions.map((p) => ({ broker, path: d.path, replica: `${p.topic}-${p.partition}`, size: p.sizeBytes, offsetLag: p.offsetLag, isFuture: p.isFuture })),
      ),
    );
    const order = (a: { broker: number; replica: string }, b: { broker: number; replica: string }) => a.broker - b.broker || a.replica.localeCompare(b.replica);
    expect(ours.sort(order)).toEqual(fromCli.sort(order));
    // Every replica of the three partitions, with data where it was produced.
    expect(ours).toHaveLength(9);
    expect(ours.find((r) => r.broker === 1 && r.replica === `${T.offsets}-0`)!.size).toBeGreaterThan(0);
    for (const id of [1, 2, 3]) {
      const d = dirs.get(id)!;
      expect(d.error).toBeNull();
      expect(d.logDirs[0]!.path).toBe(testSandbox().broker(id).dataDir);
      // DescribeLogDirs v4: the volume's size and free space.
      expect(d.logDirs[0]!.totalBytes).toBeGreaterThan(0);
    }
    expect(dirs.get(7)).toEqual({ error: expect.stringMatching(/broker 7 is not in the cluster metadata/), logDirs: [] });

    // null = every replica on the broker, internal topics included.
    const all = await admin.describeLogDirs([2], null);
    expect(all.get(2)!.logDirs[0]!.partitions.some((p) => p.topic === T.configs)).toBe(true);
  });

  it('SET / APPEND / SUBTRACT / DELETE throttle configs, compared with kafka-configs.sh --describe', async () => {
    // Verified on Kafka 4.1.1 (KRaft controller's ConfigurationControlManager; ZooKeeper
    // brokers' ConfigAdminManager.prepareIncrementalConfigs has the same rules):
    // - APPEND adds only entries not already in the list: appending "0:2" to "0:1,0:2"
    //   leaves "0:1,0:2". A comma-separated value appends each missing entry.
    // - SUBTRACT removes the listed entries and leaves the others alone; an entry not in
    //   the list is ignored. It is a multiset difference: from "0:1,0:1" SUBTRACT "0:1"
    //   leaves "0:1". Subtracting every entry leaves the key set to "" (a dynamic config
    //   with an empty value, not the default): DELETE is what removes it.
    // - "*" and partition:broker entries cannot be mixed: APPEND "0:1" to "*" is
    //   INVALID_CONFIG; APPEND / SUBTRACT on a non-list config is INVALID_CONFIG.
    // - KRaft: the answer comes once the controller committed the change; the broker
    //   asked next may serve the old value for a moment (hence the waits).
    expect(await alterTopic(T.configs, 'set', THROTTLED, '0:1,0:2')).toMatchObject({ errorCode: 0, error: null });
    await expectTopicConfig(T.configs, THROTTLED, '0:1,0:2');

    expect(await alterTopic(T.configs, 'append', THROTTLED, '0:2')).toMatchObject({ errorCode: 0 });
    expect(await alterTopic(T.configs, 'append', THROTTLED, '1:2,1:3')).toMatchObject({ errorCode: 0 });
    await expectTopicConfig(T.configs, THROTTLED, '0:1,0:2,1:2,1:3');

    expect(await alterTopic(T.configs, 'subtract', THROTTLED, '0:1')).toMatchObject({ errorCode: 0 });
    expect(await alterTopic(T.configs, 'subtract', THROTTLED, '9:9')).toMatchObject({ errorCode: 0 });
    await expectTopicConfig(T.configs, THROTTLED, '0:2,1:2,1:3');

    // "*" does not mix with a list.
    expect(await alterTopic(T.configs, 'set', THROTTLED, '*')).toMatchObject({ errorCode: 0 });
    await expectTopicConfig(T.configs, THROTTLED, '*');
    const mixed = await alterTopic(T.configs, 'append', THROTTLED, '0:1');
    expect(mixed.errorCode).toBe(40);
    expect(mixed.error).toMatch(/^INVALID_CONFIG: .*must be the literal '\*'/);

    expect(await alterTopic(T.configs, 'delete', THROTTLED, null)).toMatchObject({ errorCode: 0 });
    await expectTopicConfig(T.configs, THROTTLED, null);

    // Per-resource outcomes: one call, one resource applied and one refused.
    const mixedCall = await admin.incrementalAlterConfigs([
      { type: 'topic', name: T.configs, ops: [{ name: FOLLOWER_THROTTLED, op: 'append', value: '0:2' }] },
      { type: 'topic', name: 'adm-no-such-topic', ops: [{ name: THROTTLED, op: 'set', value: '*' }] },
    ]);
    expect(mixedCall.map((r) => [r.name, r.errorCode])).toEqual([[T.configs, 0], ['adm-no-such-topic', 3]]);
    expect((await admin.incrementalAlterConfigs([{ type: 'topic', name: T.configs, ops: [{ name: 'retention.ms', op: 'append', value: '5' }] }]))[0]).toMatchObject({
      errorCode: 40,
      error: expect.stringMatching(/^INVALID_CONFIG: .*not LIST/),
    });
    await expectTopicConfig(T.configs, FOLLOWER_THROTTLED, '0:2');
    expect(await alterTopic(T.configs, 'delete', FOLLOWER_THROTTLED, null)).toMatchObject({ errorCode: 0 });

    // Broker throttle rates: per broker (sent to that broker) and the cluster-wide default ('').
    const brokerSet = await admin.incrementalAlterConfigs([
      { type: 'broker', name: '2', ops: [{ name: LEADER_RATE, op: 'set', value: '1048576' }] },
      { type: 'broker', name: '', ops: [{ name: FOLLOWER_RATE, op: 'set', value: '2097152' }] },
    ]);
    expect(brokerSet.map((r) => r.errorCode)).toEqual([0, 0]);
    await waitFor('broker 2 leader rate', async () => {
      const [b2, dflt] = await admin.describeConfigs([
        { type: 'broker', name: '2', names: [LEADER_RATE] },
        { type: 'broker', name: '', names: [FOLLOWER_RATE] },
      ]);
      return b2!.entries.some((e) => e.name === LEADER_RATE && e.value === '1048576' && !e.isDefault) && dflt!.entries.some((e) => e.value === '2097152');
    }, 20_000);
    await waitFor('kafka-configs.sh shows the broker rates', async () => {
      const [b2, dflt] = await Promise.all([kafkaConfigs('brokers', '2'), kafkaConfigs('brokers', '')]);
      return b2[LEADER_RATE] === '1048576' && dflt[FOLLOWER_RATE] === '2097152';
    }, 30_000);

    const brokerDelete = await admin.incrementalAlterConfigs([
      { type: 'broker', name: '2', ops: [{ name: LEADER_RATE, op: 'delete', value: null }] },
      { type: 'broker', name: '', ops: [{ name: FOLLOWER_RATE, op: 'delete', value: null }] },
    ]);
    expect(brokerDelete.map((r) => r.errorCode)).toEqual([0, 0]);
    await waitFor('kafka-configs.sh shows no broker rates', async () => {
      const [b2, dflt] = await Promise.all([kafkaConfigs('brokers', '2'), kafkaConfigs('brokers', '')]);
      return b2[LEADER_RATE] === undefined && dflt[FOLLOWER_RATE] === undefined;
    }, 30_000);

    // Static values come from that broker (source 4 = server.properties).
    const [b3] = await admin.describeConfigs([{ type: 'broker', name: '3', names: ['log.dirs', 'replica.lag.time.max.ms'] }]);
    expect(b3!.entries.find((e) => e.name === 'log.dirs')).toMatchObject({ value: testSandbox().broker(3).dataDir, isDefault: false, source: 4 });
    const [topicAll] = await admin.describeConfigs([{ type: 'topic', name: T.configs }]);
    expect(topicAll!.entries.find((e) => e.name === 'cleanup.policy')).toMatchObject({ value: 'delete', isDefault: true });
  });

  it('reassigns a partition and sees it complete', async () => {
    await produce(bootstrap, T.reassign, 0, 300, -1);
    const res = await admin.alterPartitionReassignments([
      { topic: T.reassign, partition: 0, replicas: [2, 3] },
      { topic: T.reassign, partition: 5, replicas: [1, 2] },
    ]);
    expect(res[0]).toEqual({ topic: T.reassign, partition: 0, errorCode: 0, error: null });
    expect(res[1]).toMatchObject({ partition: 5, errorCode: 3, error: expect.stringMatching(/^UNKNOWN_TOPIC_OR_PARTITION/) });

    await waitFor('reassignment finished', async () => (await admin.listPartitionReassignments([{ topic: T.reassign, partition: 0 }])).length === 0, 60_000);
    expect((await admin.listPartitionReassignments()).filter((r) => r.topic === T.reassign)).toEqual([]);
    const [p] = await waitFor('kafka-topics.sh shows replicas 2,3', async () => {
      const d = await describeTopic(kafkaBin, bootstrap, T.reassign);
      return d[0]?.replicas.join(',') === '2,3' && d[0].adding.length === 0 ? d : null;
    });
    expect(p!.isr.sort()).toEqual([2, 3]);
    expect([2, 3]).toContain(p!.leader);
    expect(await admin.listOffsets([{ topic: T.reassign, partition: 0 }], 'latest')).toMatchObject([{ offset: 300, errorCode: 0 }]);

    // Nothing left to cancel: a per-partition error, not a throw.
    const cancel = await admin.alterPartitionReassignments([{ topic: T.reassign, partition: 0, replicas: null }]);
    expect(cancel[0]).toMatchObject({ errorCode: 85, error: expect.stringMatching(/^NO_REASSIGNMENT_IN_PROGRESS/) });
  });

  it('cancels a running reassignment held back by a replication throttle', async () => {
    // ~3 MB on broker 1; moving it to broker 2 at 10 kB/s would take minutes.
    await produceBytes(T.cancel, 0, 3000, 1000);
    const throttle = await admin.incrementalAlterConfigs([
      { type: 'topic', name: T.cancel, ops: [{ name: THROTTLED, op: 'set', value: '0:1' }, { name: FOLLOWER_THROTTLED, op: 'set', value: '0:2' }] },
      { type: 'broker', name: '1', ops: [{ name: LEADER_RATE, op: 'set', value: '10000' }] },
      { type: 'broker', name: '2', ops: [{ name: FOLLOWER_RATE, op: 'set', value: '10000' }] },
    ]);
    expect(throttle.map((r) => r.errorCode)).toEqual([0, 0, 0]);
    await expectTopicConfig(T.cancel, FOLLOWER_THROTTLED, '0:2');
    try {
      expect(await admin.alterPartitionReassignments([{ topic: T.cancel, partition: 0, replicas: [2] }])).toMatchObject([{ errorCode: 0 }]);
      const [running] = await waitFor('reassignment listed', async () => {
        const l = await admin.listPartitionReassignments([{ topic: T.cancel, partition: 0 }]);
        return l.length === 1 ? l : null;
      });
      expect(running).toEqual({ topic: T.cancel, partition: 0, replicas: [2, 1], addingReplicas: [2], removingReplicas: [1] });
      const during = (await describeTopic(kafkaBin, bootstrap, T.cancel))[0]!;
      expect([during.replicas, during.adding, during.removing]).toEqual([[2, 1], [2], [1]]);
      // Still crawling.
      await sleep(1000);
      expect(await admin.listPartitionReassignments([{ topic: T.cancel, partition: 0 }])).toHaveLength(1);

      const cancelled = await admin.alterPartitionReassignments([{ topic: T.cancel, partition: 0, replicas: null }]);
      expect(cancelled).toEqual([{ topic: T.cancel, partition: 0, errorCode: 0, error: null }]);
      expect(await admin.listPartitionReassignments([{ topic: T.cancel, partition: 0 }])).toEqual([]);
      await waitFor('kafka-topics.sh shows the original replica only', async () => {
        const d = (await describeTopic(kafkaBin, bootstrap, T.cancel))[0];
        return d && d.replicas.join(',') === '1' && d.adding.length === 0 && d.removing.length === 0 && d.leader === 1;
      });
    } finally {
      const cleared = await admin.incrementalAlterConfigs([
        { type: 'topic', name: T.cancel, ops: [{ name: THROTTLED, op: 'delete', value: null }, { name: FOLLOWER_THROTTLED, op: 'delete', value: null }] },
        { type: 'broker', name: '1', ops: [{ name: LEADER_RATE, op: 'delete', value: null }] },
        { type: 'broker', name: '2', ops: [{ name: FOLLOWER_RATE, op: 'delete', value: null }] },
      ]);
      expect(cleared.map((r) => r.errorCode)).toEqual([0, 0, 0]);
    }
    await waitFor('kafka-configs.sh shows the throttles gone', async () => {
      const [topic, b1, b2] = await Promise.all([kafkaConfigs('topics', T.cancel), kafkaConfigs('brokers', '1'), kafkaConfigs('brokers', '2')]);
      return topic[THROTTLED] === undefined && topic[FOLLOWER_THROTTLED] === undefined && b1[LEADER_RATE] === undefined && b2[FOLLOWER_RATE] === undefined;
    }, 30_000);
  });

  it('groups: describe with members, committed offsets vs kafka-consumer-groups.sh, admin commits only on an empty group', async () => {
    await produce(bootstrap, T.groups, 0, 30, -1);
    await produce(bootstrap, T.groups, 1, 20, -1);
    let consumed = 0;
    const consumers = [1, 2].map((i) =>
      kafkaClient(bootstrap, `adm-consumer-${i}`).consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 500, rebalanceTimeout: 10_000 }),
    );
    try {
      for (const c of consumers) {
        await c.connect();
        await c.subscribe({ topic: T.groups, fromBeginning: true });
        await c.run({ autoCommitInterval: 200, eachMessage: async () => void consumed++ });
      }
      const stable = await waitFor('group stable with both members', async () => {
        const [g] = await admin.describeGroups([GROUP]);
        return g!.state === 'Stable' && g!.members === 2 ? g : null;
      }, 60_000);
      expect(stable).toMatchObject({ groupId: GROUP, errorCode: 0, error: null, protocolType: 'consumer' });
      expect([1, 2, 3]).toContain(stable.coordinator);
      await waitFor('offsets committed', async () => {
        const o = await admin.fetchCommittedOffsets(GROUP);
        return consumed >= 50 && o.map((x) => x.offset).join(',') === '30,20';
      }, 60_000);

      // An admin commit while members are active is refused per partition.
      const refused = await admin.commitOffsets(GROUP, [{ topic: T.groups, partition: 0, offset: 1 }]);
      expect(refused[0]!.errorCode).not.toBe(0);
      expect(refused[0]!.error).toMatch(/^(UNKNOWN_MEMBER_ID|ILLEGAL_GENERATION|REBALANCE_IN_PROGRESS)/);
      console.log(`[admin groups] admin commit to an active group: ${refused[0]!.error}`);

      const listed = await admin.listGroups();
      // ListGroups v4+ gives the state, v5+ (Kafka 3.8+) the type: kafkajs's consumers are classic-protocol members.
      expect(listed.find((g) => g.groupId === GROUP)).toMatchObject({ groupId: GROUP, protocolType: 'consumer' });
      const { groupState, groupType } = listed.find((g) => g.groupId === GROUP)!;
      if (groupState != null) expect(groupState).toBe('Stable');
      if (groupType != null) expect(groupType.toLowerCase()).toBe('classic');
    } finally {
      for (const c of consumers) await c.disconnect();
    }

    const empty = await waitFor('group empty', async () => {
      const [g] = await admin.describeGroups([GROUP]);
      return g!.state === 'Empty' ? g : null;
    }, 60_000);
    expect(empty.members).toBe(0);

    const committed = await admin.fetchCommittedOffsets(GROUP);
    expect(committed).toEqual([
      { topic: T.groups, partition: 0, offset: 30, errorCode: 0, error: null },
      { topic: T.groups, partition: 1, offset: 20, errorCode: 0, error: null },
    ]);
    expect(await kafkaGroupOffsets(GROUP)).toEqual({ [`${T.groups}:0`]: '30', [`${T.groups}:1`]: '20' });

    // Empty now: the admin commit is accepted, and read back by us and by the CLI.
    const reset = await admin.commitOffsets(GROUP, [
      { topic: T.groups, partition: 0, offset: 5 },
      { topic: T.groups, partition: 1, offset: 7 },
    ]);
    expect(reset).toEqual([
      { topic: T.groups, partition: 0, errorCode: 0, error: null },
      { topic: T.groups, partition: 1, errorCode: 0, error: null },
    ]);
    expect((await admin.fetchCommittedOffsets(GROUP)).map((o) => o.offset)).toEqual([5, 7]);
    expect(await kafkaGroupOffsets(GROUP)).toEqual({ [`${T.groups}:0`]: '5', [`${T.groups}:1`]: '7' });

    // A group that never had a member: the commit creates it.
    expect(await admin.commitOffsets(NEW_GROUP, [{ topic: T.groups, partition: 1, offset: 3 }])).toMatchObject([{ errorCode: 0 }]);
    expect(await admin.fetchCommittedOffsets(NEW_GROUP, [{ topic: T.groups, partition: 0 }, { topic: T.groups, partition: 1 }])).toMatchObject([
      { partition: 0, offset: -1, errorCode: 0 },
      { partition: 1, offset: 3, errorCode: 0 },
    ]);
    expect((await admin.listGroups()).map((g) => g.groupId)).toEqual(expect.arrayContaining([GROUP, NEW_GROUP]));
    const described = await admin.describeGroups([NEW_GROUP, 'adm-never-seen']);
    expect(described[0]).toMatchObject({ groupId: NEW_GROUP, errorCode: 0, state: 'Empty', members: 0 });
    // A group the coordinator does not know: Kafka answers "Dead" (DescribeGroups v0-v5) rather than an error.
    expect(described[1]).toMatchObject({ groupId: 'adm-never-seen', state: 'Dead', members: 0 });
  });

  it('works over SASL/SCRAM-SHA-512 and TLS, and fails a wrong password fast', async () => {
    const cluster = await readSandboxCluster(sandboxSettings());
    const { scram, tls } = cluster;
    if (!scram || !tls) throw new Error('the sandbox has no SCRAM / TLS listeners');
    process.env.KR_ADMIN_TEST_SCRAM_USER = scram.username;
    process.env.KR_ADMIN_TEST_SCRAM_PASSWORD = scram.password;
    process.env.KR_ADMIN_TEST_WRONG_PASSWORD = `${scram.password}-wrong`;
    const sasl = { mechanism: 'scram-sha-512' as const, usernameEnv: 'KR_ADMIN_TEST_SCRAM_USER', passwordEnv: 'KR_ADMIN_TEST_SCRAM_PASSWORD' };
    for (const config of [
      { bootstrap: splitBootstrap(scram.bootstrapServers), sasl },
      { bootstrap: splitBootstrap(tls.bootstrapServers), ssl: { caPath: tls.caPemFile } },
    ]) {
      const secured = await openAdmin(parseConnectionConfig(config), { timeoutMs: 15_000 });
      try {
        const md = await secured.metadata([]);
        expect(md.brokers.map((b) => `127.0.0.1:${b.port}`).sort().join(',')).toBe(config.bootstrap.slice().sort().join(','));
        const dirs = await secured.describeLogDirs([1, 2, 3], [{ topic: T.offsets, partition: 0 }]);
        expect([...dirs.values()].map((d) => d.error)).toEqual([null, null, null]);
        const tp = [{ topic: T.offsets, partition: 1 }];
        expect(await secured.listOffsets(tp, 'latest')).toEqual(await admin.listOffsets(tp, 'latest'));
      } finally {
        await secured.close();
      }
    }
    const t0 = Date.now();
    const wrong = await openAdmin(parseConnectionConfig({ bootstrap: splitBootstrap(scram.bootstrapServers), sasl: { ...sasl, passwordEnv: 'KR_ADMIN_TEST_WRONG_PASSWORD' } }), {
      timeoutMs: 15_000,
    }).catch((e: unknown) => e as Error);
    expect(wrong).toBeInstanceOf(KafkaAdminError);
    expect((wrong as Error).message).toMatch(/authentication failed/i);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('concurrent first requests on one connection all wait for its ApiVersions', async () => {
    const { tls } = await readSandboxCluster(sandboxSettings());
    const ca = await readFile(tls!.caPemFile);
    const port = Number(tls!.bootstrapServers.split(',')[0]!.split(':')[1]);
    for (let round = 0; round < 5; round++) {
      const wire = new WireBroker('127.0.0.1', port, 1, { ssl: { ca }, clientId: 'adm-test', connectionTimeoutMs: 3000, requestTimeoutMs: 10_000 });
      try {
        // kafkajs calls the socket connected before the ApiVersions exchange ends: requests
        // arriving in that window must wait for it too. One more request on every turn of
        // the event loop until the first is answered, so some land in the window.
        const first = wire.metadata([]);
        let answered = false;
        void first.finally(() => (answered = true)).catch(() => undefined);
        const more: Promise<RawMetadata>[] = [];
        while (!answered && more.length < 300) {
          const p = wire.metadata([]);
          p.catch(() => undefined); // awaited below; no unhandled rejection meanwhile
          more.push(p);
          await new Promise((r) => setImmediate(r));
        }
        const all = await Promise.all([first, ...more]);
        expect(all.every((md) => md.brokers.length === 3)).toBe(true);
      } finally {
        await wire.disconnect();
      }
    }
  });

  it('reconnects once when the socket dies, idle or under a request', async () => {
    const proxy = await tcpProxy(testSandbox().broker(1).port);
    const wire = new WireBroker('127.0.0.1', proxy.port, 1, { ssl: false, clientId: 'adm-test', connectionTimeoutMs: 3000, requestTimeoutMs: 10_000 });
    try {
      expect((await wire.metadata([])).brokers).toHaveLength(3);
      expect(proxy.accepted()).toBe(1);
      // Killed while idle: the next request connects again.
      proxy.dropAll();
      await sleep(200);
      expect((await wire.metadata([])).brokers).toHaveLength(3);
      expect(proxy.accepted()).toBe(2);
      // Killed with a request in flight: sent again on a new socket.
      proxy.dropOnNextRequest();
      expect((await wire.metadata([])).brokers).toHaveLength(3);
      expect(proxy.accepted()).toBe(3);
    } finally {
      await wire.disconnect();
      await proxy.close();
    }
  });

  // Slow: stops, kills and restarts brokers (kept last).
  it('elections: unclean on a leaderless partition picks the first live replica; preferred moves leadership back', async () => {
    const sandbox = testSandbox();
    const tp = { topic: T.elect, partition: 0 };
    await produce(bootstrap, T.elect, 0, 100, -1);
    // Healthy and led by its preferred replica: nothing to do, and Kafka says so.
    expect(await admin.electLeaders('preferred', [tp])).toEqual([
      { ...tp, errorCode: 84, error: expect.stringMatching(/^ELECTION_NOT_NEEDED/) },
    ]);

    // Incident 1's shape: the followers leave the ISR one after the other, then the last ISR member dies.
    const isrIs = (want: string) => waitFor(`ISR ${want}`, async () => (await partitionMeta(T.elect)).isr.slice().sort().join(',') === want, 60_000);
    await sandbox.stop(2);
    await isrIs('1,3');
    await sandbox.stop(3);
    await isrIs('1');
    await produce(bootstrap, T.elect, 0, 50, 1, 100);
    await sandbox.kill(1);
    await Promise.all([sandbox.start(2), sandbox.start(3)]);
    await waitFor('leaderless', async () => (await partitionMeta(T.elect)).leader === -1, 60_000);
    expect((await describeTopic(kafkaBin, bootstrap, T.elect))[0]!.leader).toBe(-1);

    // While broker 1 is down: errors per partition / broker / resource, never a throw.
    expect(await admin.listOffsets([tp], 'latest')).toMatchObject([{ ...tp, offset: null, errorCode: 5, error: expect.stringMatching(/^LEADER_NOT_AVAILABLE/) }]);
    const dirs = await admin.describeLogDirs([1, 2, 3], [tp]);
    expect(dirs.get(1)!.error).toMatch(/broker 1/);
    expect(dirs.get(2)!.error).toBeNull();
    expect(dirs.get(2)!.logDirs[0]!.partitions).toMatchObject([{ ...tp }]);
    // Broker 1's own config can only be changed through broker 1: another broker refuses, and we say why.
    const viaOther = await admin.incrementalAlterConfigs([{ type: 'broker', name: '1', ops: [{ name: LEADER_RATE, op: 'set', value: '1000' }] }]);
    expect(viaOther[0]).toMatchObject({ errorCode: 42, error: expect.stringMatching(/^INVALID_REQUEST: Unexpected broker id.*asked another broker: broker 1/) });
    const preferredDown = await admin.electLeaders('preferred', [tp]);
    expect(preferredDown[0]!.errorCode).not.toBe(0);
    expect(preferredDown[0]!.error).toMatch(/^(PREFERRED_LEADER_NOT_AVAILABLE|ELIGIBLE_LEADERS_NOT_AVAILABLE)/);

    const unclean = await admin.electLeaders('unclean', [tp]);
    expect(unclean).toEqual([{ ...tp, errorCode: 0, error: null }]);
    // Replicas [1, 2, 3] with 1 down: the controller takes the first live one in assignment order.
    const afterUnclean = await waitFor('kafka-topics.sh shows a leader', async () => {
      const d = (await describeTopic(kafkaBin, bootstrap, T.elect))[0];
      return d && d.leader >= 0 ? d : null;
    });
    expect(afterUnclean.leader).toBe(2);
    expect((await partitionMeta(T.elect)).leader).toBe(2);
    expect(afterUnclean.isr).toContain(2);
    expect(await admin.electLeaders('unclean', [tp])).toMatchObject([{ errorCode: 84 }]);
    console.log(`[admin elections] leaderless ${T.elect}-0 (ELR ${JSON.stringify(afterUnclean.elr)}): preferred → ${preferredDown[0]!.error}; unclean → leader ${afterUnclean.leader}`);

    // Broker 1 back and in sync: leadership is not preferred until we ask.
    await sandbox.start(1);
    await isrIs('1,2,3');
    expect((await partitionMeta(T.elect)).leader).toBe(2);
    expect(await admin.electLeaders('preferred', [tp])).toEqual([{ ...tp, errorCode: 0, error: null }]);
    await waitFor('kafka-topics.sh shows broker 1 leading', async () => (await describeTopic(kafkaBin, bootstrap, T.elect))[0]?.leader === 1);

    // The same admin client, over sockets that died with their brokers, still works everywhere.
    const back = await admin.describeLogDirs([1, 2, 3], [tp]);
    expect([...back.values()].map((b) => b.error)).toEqual([null, null, null]);
  }, 600_000);
});

/** A TCP proxy to one broker that can kill its connections: the "dead socket" of a network fault. */
async function tcpProxy(targetPort: number): Promise<{ port: number; accepted(): number; dropAll(): void; dropOnNextRequest(): void; close(): Promise<void> }> {
  const pairs: { client: Socket; upstream: Socket }[] = [];
  let accepted = 0;
  let dropNext = false;
  const server: Server = createServer((client) => {
    accepted++;
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    pairs.push({ client, upstream });
    client.on('data', (chunk) => {
      if (dropNext) {
        dropNext = false;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    accepted: () => accepted,
    dropAll: () => {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
    },
    dropOnNextRequest: () => {
      dropNext = true;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const p of pairs) {
          p.client.destroy();
          p.upstream.destroy();
        }
        server.close(() => r());
      }),
  };
}
