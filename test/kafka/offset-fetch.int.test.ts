// Committed offsets on the real sandbox three ways: the snapshot's batched
// OffsetFetch (v8, many groups per request, KIP-709), the per-group requests we
// fall back to on brokers before Kafka 3.0 (this broker made to advertise
// OffsetFetch v1-v7, as a 2.8 one does), and kafka-consumer-groups.sh
// --describe of those groups. All three must agree, group by group and partition
// by partition, for groups spread over every coordinator.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdmin, type KafkaAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig, splitBootstrap, wireOptionsFor } from '../../lib/kafka/connection.ts';
import { committedOfGroups, takesManyGroups } from '../../lib/kafka/api/offset-fetch/call.ts';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { WireBroker, type ApiVersionRange } from '../../lib/kafka/wire.ts';
import { createTopic, kafkaTool, waitFor, withAdmin } from '../../sandbox/client.ts';
import { hasSandbox, testSandbox } from '../sandbox/helpers.ts';

const bootstrap = process.env.KAFKA_BOOTSTRAP_SERVERS ?? '';
const kafkaBin = process.env.KAFKA_BIN ?? '';
const haveSandbox = hasSandbox() && bootstrap !== '' && kafkaBin !== '';
const TOPICS = ['ofs-batch-a', 'ofs-batch-b'];
const GROUPS = Array.from({ length: 24 }, (_, i) => `ofs-batch-group-${String(i).padStart(2, '0')}`);
/** Group i commits partitions 0..(i % 3) of topic a and, every other group, partition 1 of b. */
const committedBy = (i: number) => [
  ...Array.from({ length: (i % 3) + 1 }, (_, p) => ({ topic: TOPICS[0]!, partition: p, offset: 100 * i + p })),
  ...(i % 2 === 0 ? [{ topic: TOPICS[1]!, partition: 1, offset: 7 + i }] : []),
];
const key = (topic: string, partition: number) => `${topic}:${partition}`;

let admin: KafkaAdmin;
const connection = () => parseConnectionConfig({ bootstrap: splitBootstrap(bootstrap) });

beforeAll(async () => {
  if (!haveSandbox) return;
  await testSandbox().up();
  await withAdmin(bootstrap, async (a) => {
    const existing = await a.listTopics();
    for (const t of TOPICS) if (!existing.includes(t)) await createTopic(a, t, { assignment: [[1, 2, 3], [2, 3, 1], [3, 1, 2]] });
  });
  admin = await openAdmin(connection(), { timeoutMs: 20_000 });
  // Admin commits (no members): Kafka accepts them for an empty group and creates it.
  for (const [i, g] of GROUPS.entries()) {
    await waitFor(`commit ${g}`, async () => (await admin.commitOffsets(g, committedBy(i))).every((r) => r.errorCode === 0), 30_000);
  }
}, 180_000);

afterAll(async () => {
  await admin?.close();
  // Admin commits past the log end: left behind, they are findings in the next file's "healthy" diagnosis.
  if (haveSandbox) await kafkaTool(kafkaBin, 'kafka-consumer-groups.sh', ['--bootstrap-server', bootstrap, '--delete', ...GROUPS.flatMap((g) => ['--group', g])]).catch(() => undefined);
});

describe.skipIf(!haveSandbox)('committed offsets: batched, per group and kafka-consumer-groups.sh agree', () => {
  it('on every coordinator', async () => {
    const snapshot = await takeSnapshot(connection(), { topics: TOPICS, timeoutMs: 30_000 });
    const ours = snapshot.groups.filter((g) => GROUPS.includes(g.groupId));
    expect(ours.map((g) => g.groupId)).toEqual(GROUPS);
    const coordinators = new Set(ours.map((g) => g.coordinator));
    console.log(`[offset-fetch] ${GROUPS.length} groups over coordinators ${[...coordinators].sort().join(', ')}`);
    expect(coordinators.size).toBeGreaterThan(1);

    // 1. The snapshot's batched read.
    const sample = snapshot.consumerSamples![0]!;
    const batched = new Map(sample.groups.filter((g) => GROUPS.includes(g.groupId)).map((g) => [g.groupId, Object.fromEntries(g.offsets.map((o) => [key(o.topic, o.partition), o.offset]))]));

    // 2. Per group, from brokers that advertise only OffsetFetch v1-v7 (what a 2.8 broker offers).
    const perGroup = new Map<string, Record<string, number>>();
    const conns = new Map(snapshot.brokers.map((b) => [b.id, new WireBroker(b.host, b.port, b.id, wireOptionsFor(connection(), 20_000))]));
    try {
      for (const [id, conn] of conns) {
        await conn.connect();
        expect(await takesManyGroups(conn), `broker ${id} offers v8`).toBe(true);
        (conn.apiVersions as Record<number, ApiVersionRange>)[9] = { minVersion: 1, maxVersion: 7 };
        expect(await takesManyGroups(conn)).toBe(false);
        const ids = ours.filter((g) => g.coordinator === id).map((g) => g.groupId);
        for (const [groupId, g] of await committedOfGroups(conn, ids)) {
          expect(g.errorCode).toBe(0);
          perGroup.set(groupId, Object.fromEntries(g.topics.flatMap((t) => t.partitions.filter((p) => p.committedOffset >= 0).map((p) => [key(t.name, p.partition), p.committedOffset]))));
        }
      }
    } finally {
      await Promise.all([...conns.values()].map((c) => c.disconnect()));
    }

    // 3. Kafka's own tool, our groups at once (--all-groups fails outright on another file's group whose topic a scenario deleted).
    const out = await kafkaTool(kafkaBin, 'kafka-consumer-groups.sh', ['--bootstrap-server', bootstrap, '--describe', ...GROUPS.flatMap((g) => ['--group', g])]);
    const cli = new Map<string, Record<string, number>>();
    for (const line of out.split('\n')) {
      const cols = line.trim().split(/\s+/);
      if (!GROUPS.includes(cols[0]!) || !/^\d+$/.test(cols[2] ?? '') || !/^\d+$/.test(cols[3] ?? '')) continue;
      cli.set(cols[0]!, { ...cli.get(cols[0]!), [key(cols[1]!, Number(cols[2]))]: Number(cols[3]) });
    }

    const expected = new Map(GROUPS.map((g, i) => [g, Object.fromEntries(committedBy(i).map((o) => [key(o.topic, o.partition), o.offset]))]));
    expect(cli).toEqual(expected);
    expect(batched).toEqual(expected);
    expect(perGroup).toEqual(expected);
  }, 120_000);
});
