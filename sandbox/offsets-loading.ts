// Incident 2, part 2: __consumer_offsets grown to many segments because
// compaction cannot keep up, then the coordinator restarted: while the new
// coordinator replays the partition, the groups it holds answer
// COORDINATOR_LOAD_IN_PROGRESS / NOT_COORDINATOR.
import { join } from 'node:path';
import { logLevel, type Consumer } from 'kafkajs';
import type { Sandbox } from './cluster.ts';
import { createTopic, kafkaClient, kafkaTool, offsetsPartitionFor, sleep, waitFor } from './client.ts';
import { partitionDir, segmentFiles, type ScenarioContext, type ScenarioResult } from './scenarios.ts';
import { BROKER_IDS } from './layout.ts';
import { Kafka } from 'kafkajs';

const OFFSETS_PARTITIONS = 50;
const TOPIC = 'events';
const TOPIC_PARTITIONS = 100;
const GROUPS = 6;
/** Many small records, not few big ones: the coordinator's replay cost is per record. */
const COMMITS_PER_GROUP = 1500;

/** Group ids whose offsets all live in the same __consumer_offsets partition. */
export function groupsOnOnePartition(count: number, partitions = OFFSETS_PARTITIONS): { partition: number; groups: string[] } {
  const partition = offsetsPartitionFor('billing-consumers', partitions);
  const groups = ['billing-consumers'];
  for (let i = 0; groups.length < count; i++) {
    const id = `billing-consumers-${i}`;
    if (offsetsPartitionFor(id, partitions) === partition) groups.push(id);
  }
  return { partition, groups };
}

/**
 * A coordinator that moves while a group commits (a leader of __consumer_offsets balanced back
 * onto its preferred broker) answers NOT_COORDINATOR after kafkajs's own retries: the group joins
 * and commits again, a bounded number of times.
 */
async function commitMany(bootstrap: string, groupId: string, commits: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await commitManyOnce(bootstrap, groupId, commits);
    } catch (err) {
      if (attempt >= 3 || !/coordinator/i.test(err instanceof Error ? err.message : String(err))) throw err;
      await sleep(1000);
    }
  }
}

async function commitManyOnce(bootstrap: string, groupId: string, commits: number): Promise<void> {
  const consumer: Consumer = kafkaClient(bootstrap, 'kafka-responder-offsets').consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  let joined = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    joined = true;
  });
  await consumer.run({ autoCommit: false, eachBatch: async () => {} });
  await waitFor(`${groupId} joined`, async () => joined, 60_000);
  try {
    for (let i = 0; i < commits; i++) {
      await consumer.commitOffsets(
        Array.from({ length: TOPIC_PARTITIONS }, (_, partition) => ({ topic: TOPIC, partition, offset: String(i + 1) })),
      );
    }
  } finally {
    await consumer.disconnect();
  }
}

async function leaderOf(ctx: ScenarioContext, partition: number): Promise<number> {
  const p = (await ctx.describe('__consumer_offsets')).find((x) => x.partition === partition);
  if (!p) throw new Error(`__consumer_offsets-${partition} not found`);
  return p.leader;
}

/** kafkajs wraps the protocol error in retry errors; the innermost type is Kafka's error. */
function errorType(err: unknown): string {
  let e = err as { type?: string; name?: string; cause?: unknown } | undefined;
  while (e && !e.type && e.cause) e = e.cause as typeof e;
  return e?.type ?? e?.name ?? 'unknown';
}

/** Polls describeGroups with no retries and counts the coordinator errors each group answers with. */
function pollGroupErrors(bootstrap: string, groups: string[]) {
  const seen: Record<string, number> = {};
  let running = true;
  const kafka = new Kafka({ clientId: 'kafka-responder-poller', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING, connectionTimeout: 1000, requestTimeout: 3000, retry: { retries: 0 } });
  const loop = (async () => {
    while (running) {
      const admin = kafka.admin({ retry: { retries: 0 } });
      try {
        await admin.connect();
        while (running) {
          try {
            await admin.describeGroups(groups);
          } catch (err) {
            const type = errorType(err);
            seen[type] = (seen[type] ?? 0) + 1;
          }
          await sleep(20);
        }
      } catch (err) {
        const type = errorType(err);
        seen[type] = (seen[type] ?? 0) + 1;
      } finally {
        await admin.disconnect().catch(() => {});
      }
    }
  })();
  return {
    seen,
    async stop() {
      running = false;
      await loop;
      return seen;
    },
  };
}

export async function offsetsLoading(sandbox: Sandbox, ctx: ScenarioContext): Promise<ScenarioResult['expect']> {
  const assignment = Array.from({ length: TOPIC_PARTITIONS }, (_, p) => [0, 1, 2].map((k) => BROKER_IDS[(p + k) % BROKER_IDS.length]!));
  await ctx.admin((a) => createTopic(a, TOPIC, { assignment }));
  ctx.topics.push(TOPIC);
  const { partition, groups } = groupsOnOnePartition(GROUPS);
  // The first group creates __consumer_offsets; then make compaction unable to keep up with it.
  await commitMany(ctx.bootstrap, groups[0]!, 1);
  await kafkaTool(sandbox.binDir, 'kafka-configs.sh', [
    '--bootstrap-server', ctx.bootstrap, '--alter', '--entity-type', 'topics', '--entity-name', '__consumer_offsets',
    '--add-config', `segment.bytes=${1024 * 1024},min.compaction.lag.ms=86400000`,
  ]);
  ctx.did('__consumer_offsets: segment.bytes=1 MiB, min.compaction.lag.ms=1 day (the cleaner cannot compact it)');
  await Promise.all(groups.map((g) => commitMany(ctx.bootstrap, g, COMMITS_PER_GROUP)));
  ctx.did(`${groups.length} groups committed ${COMMITS_PER_GROUP} times each (${TOPIC_PARTITIONS} partitions each) into __consumer_offsets-${partition}`);

  const leader = await leaderOf(ctx, partition);
  const segmentsPerBroker: Record<string, number> = {};
  for (const b of BROKER_IDS) segmentsPerBroker[b] = (await segmentFiles(await partitionDir(sandbox, b, '__consumer_offsets', partition), '.log')).length;

  // Incident 2 restarted every holder at once; the coordinator's restart is enough to force a reload elsewhere and back.
  const poller = pollGroupErrors(ctx.bootstrap, groups);
  await sleep(500);
  await ctx.stop(leader);
  await sleep(2000);
  await ctx.start(leader);
  // Hand leadership back to the restarted broker: it replays the whole partition again.
  await kafkaTool(sandbox.binDir, 'kafka-leader-election.sh', [
    '--bootstrap-server', ctx.bootstrap, '--election-type', 'preferred', '--topic', '__consumer_offsets', '--partition', String(partition),
  ]).catch(() => '');
  await sleep(3000);
  const seen = await poller.stop();
  ctx.did(`restarted coordinator broker ${leader} of __consumer_offsets-${partition}; groups answered ${JSON.stringify(seen)}`);
  return {
    groups: groups.map((groupId) => ({ groupId, offsetsPartition: partition })),
    groupErrorsSeen: seen,
    consumerOffsets: { partition, leader, segmentsPerBroker },
    serverLog: [
      {
        broker: leader,
        file: join(sandbox.broker(leader).logsDir, 'server.log'),
        // 4.x's new group coordinator (CoordinatorRuntime) and 3.9's classic GroupMetadataManager word it differently.
        contains: [
          sandbox.settings.kafkaVersion.startsWith('4.')
            ? `Finished loading of metadata from __consumer_offsets-${partition} with epoch`
            : `Finished loading offsets and group metadata from __consumer_offsets-${partition} in`,
        ],
      },
    ],
  };
}
