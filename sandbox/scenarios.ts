// Reproduces the incidents of shared/incidents.md on the running sandbox. Each
// scenario starts from a healthy cluster, does what the incident did, and
// prints what it did and the symptoms Kafka itself should now report.
import { open, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import type { Sandbox } from './cluster.ts';
import { BROKER_IDS, hasControllerQuorum } from './layout.ts';
import { waitQuorumHealthy } from './quorum.ts';
import { QUORUM_SCENARIOS, type QuorumExpect } from './quorum-scenarios.ts';
import { createTopic, describeTopic, kafkaTool, parseTopicDescribe, kafkaClient, offsetsPartitionFor, produce, sleep, waitFor, withAdmin } from './client.ts';

/** Topics the scenarios create; `healthy` deletes them. */
export const SCENARIO_TOPICS = ['logs-rf1', 'orders', 'payments', 'clicks', 'audit', 'events', 'inventory'] as const;

export interface ScenarioResult {
  scenario: string;
  kafkaVersion: string;
  bootstrapServers: string;
  durationMs: number;
  actions: string[];
  topics: string[];
  brokers: { stopped: number[]; killed: number[]; wiped: number[]; restarted: number[] };
  /** The quorum scenarios' controllers (quorum-scenarios.ts). */
  controllers?: { stopped: number[]; killed: number[] };
  /** What Kafka should report now; partitions as "topic:partition". */
  expect: {
    unavailablePartitions?: string[];
    underReplicatedPartitions?: string[];
    underMinIsrPartitions?: string[];
    serverLog?: { broker: number; file: string; contains: string[] }[];
    groups?: { groupId: string; offsetsPartition: number }[];
    groupErrorsSeen?: Record<string, number>;
    messagesPerReplica?: Record<string, number>;
    defaultUncleanLeader?: number;
    bestReplica?: number;
    partitionDirsWithoutSegments?: { broker: number; dirs: string[] }[];
    consumerOffsets?: { partition: number; leader: number; segmentsPerBroker: Record<string, number> };
    quorum?: QuorumExpect;
  };
  details?: Record<string, unknown>;
}

type ScenarioFn = (sandbox: Sandbox, ctx: Ctx) => Promise<ScenarioResult['expect']>;

class Ctx {
  readonly actions: string[] = [];
  readonly topics: string[] = [];
  readonly brokers = { stopped: [] as number[], killed: [] as number[], wiped: [] as number[], restarted: [] as number[] };
  readonly controllers = { stopped: [] as number[], killed: [] as number[] };
  details: Record<string, unknown> = {};
  constructor(readonly sandbox: Sandbox) {}
  get bootstrap() {
    return this.sandbox.bootstrapServers;
  }
  did(action: string) {
    this.actions.push(action);
    this.sandbox.log(`  ${action}`);
  }
  async stop(id: number) {
    await this.sandbox.stop(id);
    this.brokers.stopped.push(id);
    this.did(`stopped broker ${id} (graceful)`);
  }
  async kill(id: number) {
    await this.sandbox.kill(id);
    this.brokers.killed.push(id);
    this.did(`killed broker ${id} (SIGKILL)`);
  }
  async start(id: number) {
    await this.sandbox.start(id);
    this.brokers.restarted.push(id);
    this.did(`started broker ${id}`);
  }
  /** Kafka's own view through kafka-topics.sh: kafkajs refuses metadata with leaderless partitions. */
  describe(topic: string) {
    return describeTopic(this.sandbox.binDir, this.bootstrap, topic);
  }
  admin<T>(fn: (admin: Admin) => Promise<T>) {
    return withAdmin(this.bootstrap, fn);
  }
}

const tp = (topic: string, partition: number) => `${topic}:${partition}`;

/** Every partition of every topic led and fully in sync. */
async function describeAll(ctx: Ctx) {
  return parseTopicDescribe(await kafkaTool(ctx.sandbox.binDir, 'kafka-topics.sh', ['--bootstrap-server', ctx.bootstrap, '--describe']));
}

/**
 * A wiped broker that comes back is no longer an eligible leader (KIP-966):
 * partitions it alone held stay leaderless until the controller's periodic
 * check elects it anyway minutes later. The sandbox's data is disposable, so
 * it takes the unclean election an operator would refuse on a real cluster.
 */
async function electLeaderlessUnclean(ctx: Ctx) {
  const leaderless = (await describeAll(ctx)).filter((p) => p.leader < 0);
  if (!leaderless.length) return;
  const file = join(ctx.sandbox.settings.home, 'unclean-election.json');
  await writeFile(file, JSON.stringify({ partitions: leaderless.map((p) => ({ topic: p.topic, partition: p.partition })) }));
  await kafkaTool(ctx.sandbox.binDir, 'kafka-leader-election.sh', ['--bootstrap-server', ctx.bootstrap, '--election-type', 'unclean', '--path-to-json-file', file]);
  ctx.did(`sandbox reset: unclean election for ${leaderless.length} leaderless partitions`);
}

async function waitFullyReplicated(ctx: Ctx, timeoutMs = 180_000) {
  await waitFor('every partition led and fully in sync', async () => {
    const all = await describeAll(ctx);
    return all.every((p) => p.leader >= 0 && p.isr.length === p.replicas.length);
  }, timeoutMs);
}

/** Back to a clean, fully replicated cluster: every node up, scenario topics gone, configs reset. */
export async function ensureHealthy(ctx: Ctx): Promise<void> {
  await rebuildIfConsumerOffsetsOversized(ctx);
  const controllerWasDown = (await ctx.sandbox.status()).some((s) => s.role === 'controller' && !s.running);
  await ctx.sandbox.up();
  // Controllers restarted: the quorum leads again with all its voters before anything asks it for a change.
  if (controllerWasDown && hasControllerQuorum(ctx.sandbox.settings)) await waitQuorumHealthy(ctx.sandbox.settings);
  await electLeaderlessUnclean(ctx);
  await waitFullyReplicated(ctx);
  await ctx.admin(async (admin) => {
    const existing = await admin.listTopics();
    const ours = SCENARIO_TOPICS.filter((t) => existing.includes(t));
    if (ours.length) {
      await admin.deleteTopics({ topics: ours, timeout: 30_000 });
      await waitFor('scenario topics deleted', async () => {
        const now = await admin.listTopics();
        return ours.every((t) => !now.includes(t));
      });
    }
    if (existing.includes('__consumer_offsets')) {
      // alterConfigs replaces the whole dynamic config: an empty list restores the defaults.
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: '__consumer_offsets', configEntries: [] }] });
    }
  });
  await waitFullyReplicated(ctx);
}

/** Largest number of segments any __consumer_offsets partition has on any broker. */
async function maxConsumerOffsetsSegments(sandbox: Sandbox): Promise<number> {
  let max = 0;
  for (const id of BROKER_IDS) {
    const dataDir = sandbox.broker(id).dataDir;
    for (const dir of (await readdir(dataDir).catch(() => [] as string[])).filter((d) => d.startsWith('__consumer_offsets-'))) {
      max = Math.max(max, (await segmentFiles(join(dataDir, dir), '.log').catch(() => [])).length);
    }
  }
  return max;
}

/**
 * offsets-loading leaves __consumer_offsets with dozens of segments that
 * the log cleaner does not merge back in any predictable time. The sandbox's
 * data is disposable: rebuild it from scratch instead of waiting.
 */
async function rebuildIfConsumerOffsetsOversized(ctx: Ctx) {
  const limit = 20;
  const segments = await maxConsumerOffsetsSegments(ctx.sandbox);
  if (segments <= limit) return;
  ctx.did(`rebuilding the sandbox from scratch: a __consumer_offsets partition holds ${segments} segments`);
  await ctx.sandbox.down({ purge: true });
}

async function partitionDir(sandbox: Sandbox, broker: number, topic: string, partition: number) {
  return join(sandbox.broker(broker).dataDir, `${topic}-${partition}`);
}

async function segmentFiles(dir: string, ext: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith(ext)).sort();
}

const rf1BrokerDown: ScenarioFn = async (sandbox, ctx) => {
  const topic = 'logs-rf1';
  // Replication factor 1, spread over the brokers, as on incident 3's log cluster.
  const assignment = [[1], [2], [3], [1], [2], [3]];
  await ctx.admin((a) => createTopic(a, topic, { assignment }));
  ctx.topics.push(topic);
  ctx.did(`created ${topic}: 6 partitions, replication factor 1`);
  for (let p = 0; p < assignment.length; p++) await produce(ctx.bootstrap, topic, p, 200);
  ctx.did('produced 200 messages to each partition');
  const victim = 3;
  await ctx.stop(victim);
  const lost = assignment.flatMap((r, p) => (r[0] === victim ? [p] : []));
  await waitFor('partitions of the stopped broker leaderless', async () =>
    (await ctx.describe(topic)).filter((p) => lost.includes(p.partition)).every((p) => p.leader < 0),
  );
  const offline = lost.map((p) => tp(topic, p));
  // With eligible leader replicas (4.x) the dead broker leaves the ISR, which is then empty: replication
  // factor 1 minus 0 in sync counts as under-replicated. 3.9 and 2.8 (KRaft or ZooKeeper) keep the last replica in the ISR.
  const elr = sandbox.settings.kafkaVersion.startsWith('4.');
  return { unavailablePartitions: offline, underMinIsrPartitions: offline, underReplicatedPartitions: elr ? offline : [] };
};

/**
 * Incident 1's outage: ISR shrinks to the leader, which is killed and wiped.
 * The followers drop out one after the other, so they hold different amounts:
 * broker 2 the first 400 messages, broker 3 the first 700, broker 1 (gone) 1,000.
 */
const isrOneLeaderLost: ScenarioFn = async (sandbox, ctx) => {
  const topic = 'orders';
  const phases = [400, 300, 300] as const;
  await ctx.admin((a) =>
    createTopic(a, topic, { assignment: [[1, 2, 3]], configs: { 'min.insync.replicas': '1', 'unclean.leader.election.enable': 'false' } }),
  );
  ctx.topics.push(topic);
  ctx.did(`created ${topic}: 1 partition on brokers 1,2,3, min.insync.replicas=1, unclean election off`);
  const isrIs = (want: number[]) =>
    waitFor(`ISR of ${topic}-0 = [${want}]`, async () => {
      const [p] = await ctx.describe(topic);
      return p && [...p.isr].sort().join(',') === want.join(',') && p.leader === 1;
    });
  const [first, second, third] = phases;
  await produce(ctx.bootstrap, topic, 0, first, -1);
  ctx.did(`produced ${first} messages (all three replicas in sync)`);
  // The followers drop out one after the other while the leader keeps taking writes.
  await ctx.stop(2);
  await isrIs([1, 3]);
  await produce(ctx.bootstrap, topic, 0, second, 1, first);
  ctx.did(`produced ${second} more with broker 2 out of the ISR`);
  await ctx.stop(3);
  await isrIs([1]);
  await produce(ctx.bootstrap, topic, 0, third, 1, first + second);
  ctx.did(`produced ${third} more with ISR = {1}`);
  await ctx.kill(1);
  await sandbox.wipe(1);
  ctx.brokers.wiped.push(1);
  ctx.did('wiped broker 1 (the only in-sync replica): its data is gone and it stays down');
  await Promise.all([ctx.start(2), ctx.start(3)]);
  // In ZooKeeper mode the killed leader stays registered until its ZooKeeper session expires (18 s).
  await waitFor(`${topic}-0 leaderless with brokers 2 and 3 back`, async () => (await ctx.describe(topic))[0]?.leader === -1, 120_000);
  return {
    unavailablePartitions: [tp(topic, 0)],
    underMinIsrPartitions: [tp(topic, 0)],
    messagesPerReplica: { '1': 0, '2': first, '3': first + second },
    // The controller's unclean election takes the first live replica in assignment order.
    defaultUncleanLeader: 2,
    bestReplica: 3,
  };
};

const uncleanRestart: ScenarioFn = async (sandbox, ctx) => {
  const topic = 'payments';
  const victim = 2;
  await ctx.admin((a) => createTopic(a, topic, { assignment: [[2, 3, 1], [3, 1, 2], [1, 2, 3]] }));
  ctx.topics.push(topic);
  const producer = kafkaClient(ctx.bootstrap, 'kafka-responder-load').producer({ retry: { retries: 10 } });
  await producer.connect();
  let sent = 0;
  let running = true;
  const load = (async () => {
    while (running) {
      try {
        await producer.send({ topic, acks: 1, messages: Array.from({ length: 200 }, (_, i) => ({ value: `payment ${sent + i}` })) });
        sent += 200;
      } catch {
        await sleep(100);
      }
    }
  })();
  await sleep(2000);
  ctx.did('writing to payments continuously');
  await ctx.kill(victim);
  await sleep(1500);
  running = false;
  await load;
  await producer.disconnect();
  ctx.did(`stopped the load after ${sent} messages`);
  await ctx.start(victim);
  const dataDir = sandbox.broker(victim).dataDir;
  return {
    serverLog: [
      {
        broker: victim,
        file: join(sandbox.broker(victim).logsDir, 'server.log'),
        // 3.5+ words it "Recovering N logs from <dir> since ...", 2.8 "Attempting recovery for all logs in <dir> since ...".
        contains: [`${sandbox.settings.kafkaVersion.startsWith('2.') ? 'all logs in' : 'logs from'} ${dataDir} since no clean shutdown file was found`],
      },
    ],
  };
};

/**
 * Since Kafka 2.x/3.x the loader no longer sanity-checks offset and time
 * indexes (LogSegment.sanityCheck: segments above the recovery point are
 * rebuilt anyway); the transaction index is still checked on every load. An
 * aborted-transaction entry ending before the segment's base offset is what a
 * torn write leaves behind, and makes Kafka log its corrupted-index warning.
 */
async function corruptTransactionIndex(segmentLog: string, baseOffset: number): Promise<string> {
  const file = segmentLog.replace(/\.log$/, '.txnindex');
  // AbortedTxn v0: version int16, producerId int64, firstOffset int64, lastOffset int64, lastStableOffset int64.
  const entry = Buffer.alloc(34);
  entry.writeInt16BE(0, 0);
  entry.writeBigInt64BE(7n, 2);
  entry.writeBigInt64BE(BigInt(baseOffset - 1), 10);
  entry.writeBigInt64BE(BigInt(baseOffset - 1), 18);
  entry.writeBigInt64BE(BigInt(baseOffset - 1), 26);
  const fh = await open(file, 'w');
  try {
    await fh.write(entry);
  } finally {
    await fh.close();
  }
  return file;
}

const corruptIndex: ScenarioFn = async (sandbox, ctx) => {
  const topic = 'clicks';
  const victim = 3;
  await ctx.admin((a) =>
    createTopic(a, topic, { assignment: [[3, 1, 2]], configs: { 'segment.bytes': String(1024 * 1024), 'index.interval.bytes': '4096' } }),
  );
  ctx.topics.push(topic);
  const producer = kafkaClient(ctx.bootstrap, 'kafka-responder-load').producer();
  await producer.connect();
  const payload = 'x'.repeat(400);
  for (let i = 0; i < 40; i++) {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 250 }, (_, k) => ({ partition: 0, value: `${i * 250 + k} ${payload}` })) });
  }
  await producer.disconnect();
  ctx.did('produced 10,000 messages of ~400 bytes (several 1 MiB segments)');
  await ctx.stop(victim);
  const dir = await partitionDir(sandbox, victim, topic, 0);
  const logs = await segmentFiles(dir, '.log');
  if (logs.length < 2) throw new Error(`expected several segments in ${dir}, found ${logs.length}`);
  // The second segment: a closed one in the middle of the log, not the active one.
  const segment = join(dir, logs[1]!);
  const target = await corruptTransactionIndex(segment, Number(logs[1]!.replace('.log', '')));
  ctx.did(`corrupted ${target}`);
  ctx.details = { corruptedIndex: target, segment };
  await ctx.start(victim);
  return {
    serverLog: [
      {
        broker: victim,
        file: join(sandbox.broker(victim).logsDir, 'server.log'),
        contains: [`Found a corrupted index file corresponding to log file ${segment}`],
      },
    ],
  };
};

const missingSegments: ScenarioFn = async (sandbox, ctx) => {
  const topic = 'audit';
  const victim = 2;
  await ctx.admin((a) => createTopic(a, topic, { assignment: [[2, 3, 1], [3, 1, 2]] }));
  ctx.topics.push(topic);
  await produce(ctx.bootstrap, topic, 0, 500, -1);
  await produce(ctx.bootstrap, topic, 1, 500, -1);
  ctx.did('produced 500 messages to each partition');
  await ctx.stop(victim);
  const dir = await partitionDir(sandbox, victim, topic, 0);
  const removed: string[] = [];
  for (const f of await readdir(dir)) {
    if (/\.(log|index|timeindex|snapshot|txnindex)$/.test(f)) {
      await rm(join(dir, f));
      removed.push(f);
    }
  }
  ctx.did(`deleted ${removed.length} segment files of ${topic}-0 under stopped broker ${victim}`);
  ctx.details = { removedFiles: removed.map((f) => join(dir, f)) };
  return {
    underReplicatedPartitions: [tp(topic, 0), tp(topic, 1)],
    partitionDirsWithoutSegments: [{ broker: victim, dirs: [dir] }],
  };
};

const healthy: ScenarioFn = async () => ({ unavailablePartitions: [], underReplicatedPartitions: [], underMinIsrPartitions: [] });

export const SCENARIOS: Record<string, ScenarioFn> = {
  'rf1-broker-down': rf1BrokerDown,
  'isr-one-leader-lost': isrOneLeaderLost,
  'unclean-restart': uncleanRestart,
  'corrupt-index': corruptIndex,
  'offsets-loading': async (s, c) => (await import('./offsets-loading.ts')).offsetsLoading(s, c),
  'missing-segments': missingSegments,
  ...QUORUM_SCENARIOS,
  healthy,
};

export async function runScenario(sandbox: Sandbox, name: string, _args: string[] = []): Promise<ScenarioResult> {
  const fn = SCENARIOS[name];
  if (!fn) throw new Error(`unknown scenario ${name}; one of: ${Object.keys(SCENARIOS).join(', ')}`);
  const t0 = Date.now();
  const ctx = new Ctx(sandbox);
  sandbox.log(`scenario ${name}:`);
  await ensureHealthy(ctx);
  const expect = await fn(sandbox, ctx);
  return {
    scenario: name,
    kafkaVersion: sandbox.settings.kafkaVersion,
    bootstrapServers: sandbox.bootstrapServers,
    durationMs: Date.now() - t0,
    actions: ctx.actions,
    topics: ctx.topics,
    brokers: ctx.brokers,
    ...(ctx.controllers.stopped.length || ctx.controllers.killed.length ? { controllers: ctx.controllers } : {}),
    expect,
    ...(Object.keys(ctx.details).length ? { details: ctx.details } : {}),
  };
}

export { Ctx as ScenarioContext, offsetsPartitionFor, partitionDir, segmentFiles, tp };
