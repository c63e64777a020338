// DescribeTopicPartitions (API 75): byte-level encode/decode against bytes
// produced by Kafka 4.1.1's own generated classes
// (DescribeTopicPartitionsRequestData / ResponseData serialized with
// MessageUtil.toByteBufferAccessor(message, 0)), and the paginated reader the
// snapshot uses, against a fake broker that pages as Kafka's handler does.

import { describe, expect, it } from 'vitest';
import { DescribeTopicPartitions, type DescribeTopicPartitionsArgs, type DescribeTopicPartitionsResult, type DescribedPartition } from '../../lib/kafka/api/describe-topic-partitions/codec.ts';
import { applyPartitionDetails, readElrInto } from '../../lib/kafka/partition-details.ts';
import { type PageSource, readPartitionDetails } from '../../lib/kafka/api/describe-topic-partitions/call.ts';
import { UnsupportedVersionError } from '../../lib/kafka/wire.ts';
import type { SnapshotError, TopicState } from '../../lib/kafka/types.ts';

const hex = (b: Buffer) => b.toString('hex');
const bytes = (h: string) => Buffer.from(h, 'hex');

const JAVA = {
  // Topics [], ResponsePartitionLimit 2000, Cursor null
  requestAll: '01000007d0ff00',
  // Topics [orders, payments], limit 2, Cursor (orders, 1)
  requestWithCursor: '03076f726465727300097061796d656e7473000000000201076f7264657273000000010000',
  // orders (id 0102…10, authorized ops 3576): partition 0 leaderless, ISR [], ELR [3], LastKnownElr [1], offline [1];
  // partition 1 leader 2, ISR [2,3,1], ELR and LastKnownElr null; NextCursor (orders, 2)
  page:
    '00000000020000076f72646572730102030405060708090a0b0c0d0e0f100003000000000000ffffffff00000007040000000100000002000000030102000000030200000001020000000100000000000001000000020000000004000000020000000300000001040000000200000003000000010000010000000df80001076f7264657273000000020000',
  // throttle 5; "missing" UNKNOWN_TOPIC_OR_PARTITION; __consumer_offsets (internal) partition 0 with empty ELR arrays; NextCursor null
  lastPage:
    '00000005030003086d697373696e6700000000000000000000000000000000000180000000000000135f5f636f6e73756d65725f6f666673657473000000000000000100000000000000020102000000000000000000010000000302000000010200000001010101008000000000ff00',
};

describe('DescribeTopicPartitions v0 matches Kafka 4.1.1 byte for byte', () => {
  it('encodes every topic (empty list) with a null cursor, and named topics with a cursor', () => {
    expect(hex(DescribeTopicPartitions.encode(0, { topics: [], responsePartitionLimit: 2000, cursor: null }))).toBe(JAVA.requestAll);
    expect(hex(DescribeTopicPartitions.encode(0, { topics: ['orders', 'payments'], responsePartitionLimit: 2, cursor: { topicName: 'orders', partitionIndex: 1 } }))).toBe(
      JAVA.requestWithCursor,
    );
  });

  it('decodes ELR, last known ELR (null read as empty), topic id and the next cursor', () => {
    const res = DescribeTopicPartitions.decode(0, bytes(JAVA.page));
    expect(res.throttleTimeMs).toBe(0);
    expect(res.nextCursor).toEqual({ topicName: 'orders', partitionIndex: 2 });
    expect(res.topics).toHaveLength(1);
    const t = res.topics[0]!;
    expect(t).toMatchObject({ errorCode: 0, name: 'orders', topicId: 'AQIDBAUGBwgJCgsMDQ4PEA', isInternal: false, topicAuthorizedOperations: 3576 });
    expect(t.partitions).toEqual([
      { errorCode: 0, partitionIndex: 0, leaderId: -1, leaderEpoch: 7, replicaNodes: [1, 2, 3], isrNodes: [], eligibleLeaderReplicas: [3], lastKnownElr: [1], offlineReplicas: [1] },
      { errorCode: 0, partitionIndex: 1, leaderId: 2, leaderEpoch: 0, replicaNodes: [2, 3, 1], isrNodes: [2, 3, 1], eligibleLeaderReplicas: [], lastKnownElr: [], offlineReplicas: [] },
    ]);
  });

  it('decodes a topic error, an internal topic and the null cursor of the last page', () => {
    const res = DescribeTopicPartitions.decode(0, bytes(JAVA.lastPage));
    expect(res.throttleTimeMs).toBe(5);
    expect(res.nextCursor).toBeNull();
    expect(res.topics.map((t) => [t.name, t.errorCode, t.isInternal, t.partitions.length])).toEqual([
      ['missing', 3, false, 0],
      ['__consumer_offsets', 0, true, 1],
    ]);
    expect(res.topics[1]!.partitions[0]).toMatchObject({ leaderId: 1, isrNodes: [1], eligibleLeaderReplicas: [], lastKnownElr: [] });
  });

  it('a truncated answer is a protocol error, and only v0 exists', () => {
    expect(() => DescribeTopicPartitions.decode(0, bytes(JAVA.page).subarray(0, 60))).toThrow(/truncated response/);
    expect(() => DescribeTopicPartitions.encode(1, { topics: [], responsePartitionLimit: 1, cursor: null })).toThrow(/not implemented/);
  });
});

// ------------------------------------------------------------ the paginated reader

type Layout = Record<string, { leader: number; isr: number[]; elr: number[]; lastKnownElr: number[] }[]>;

/**
 * Pages like Kafka's DescribeTopicPartitionsRequestHandler: topics by name from
 * the cursor on, at most `limit` partitions, NextCursor at the first partition
 * left out.
 */
function fakeBroker(layout: Layout, opts: { supports?: boolean; cap?: number; failOnPage?: number; stuck?: boolean } = {}) {
  const asked: DescribeTopicPartitionsArgs[] = [];
  const conn: PageSource = {
    nodeId: 1,
    address: '127.0.0.1:9092',
    apiVersions: opts.supports === false ? { 3: { minVersion: 0, maxVersion: 12 } } : { 3: { minVersion: 0, maxVersion: 12 }, 75: { minVersion: 0, maxVersion: 0 } },
    connect: async () => {},
    request: (async (_def: unknown, args: DescribeTopicPartitionsArgs) => {
      asked.push(args);
      if (opts.failOnPage === asked.length) throw new Error('socket hang up');
      const limit = Math.min(args.responsePartitionLimit, opts.cap ?? 2000);
      const names = (args.topics.length ? [...args.topics] : Object.keys(layout)).sort().filter((n) => n >= (args.cursor?.topicName ?? ''));
      const res: DescribeTopicPartitionsResult = { throttleTimeMs: 0, topics: [], nextCursor: null };
      let left = limit;
      for (const name of names) {
        const ps = layout[name];
        if (!ps) continue;
        if (left === 0) {
          res.nextCursor = { topicName: name, partitionIndex: 0 };
          break;
        }
        const start = opts.stuck ? (args.cursor?.partitionIndex ?? 0) : name === args.cursor?.topicName ? args.cursor.partitionIndex : 0;
        const end = Math.min(ps.length, start + left);
        const partitions: DescribedPartition[] = [];
        for (let i = start; i < end; i++) {
          const p = ps[i]!;
          partitions.push({ errorCode: 0, partitionIndex: i, leaderId: p.leader, leaderEpoch: 1, replicaNodes: [1, 2, 3], isrNodes: p.isr, eligibleLeaderReplicas: p.elr, lastKnownElr: p.lastKnownElr, offlineReplicas: [] });
        }
        res.topics.push({ errorCode: 0, name, topicId: 'x', isInternal: false, partitions, topicAuthorizedOperations: 0 });
        if (end < ps.length) {
          res.nextCursor = { topicName: name, partitionIndex: opts.stuck ? start : end };
          break;
        }
        left -= partitions.length;
      }
      return res;
    }) as PageSource['request'],
  };
  if (opts.supports === false) {
    conn.request = (async () => {
      throw new UnsupportedVersionError('DescribeTopicPartitions', conn.address, 'not supported');
    }) as PageSource['request'];
  }
  return { conn, asked };
}

const healthy = (n: number) => Array.from({ length: n }, () => ({ leader: 1, isr: [1, 2, 3], elr: [], lastKnownElr: [] }));

describe('readPartitionDetails', () => {
  it('follows the cursor across pages and topics until the last page, and reads every partition once', async () => {
    const layout: Layout = { alpha: healthy(5), beta: [{ leader: -1, isr: [], elr: [3], lastKnownElr: [1] }, ...healthy(2)], gamma: healthy(4) };
    const { conn, asked } = fakeBroker(layout);
    const read = await readPartitionDetails(conn, { topics: null, expectedPartitions: 12, pageBudget: () => 1000, pageSize: 4 });
    expect(read.status).toBe('read');
    if (read.status !== 'read') return;
    expect([...read.partitions].map(([t, ps]) => [t, [...ps.keys()]])).toEqual([
      ['alpha', [0, 1, 2, 3, 4]],
      ['beta', [0, 1, 2]],
      ['gamma', [0, 1, 2, 3]],
    ]);
    expect(read.partitions.get('beta')!.get(0)).toMatchObject({ leaderId: -1, isrNodes: [], eligibleLeaderReplicas: [3], lastKnownElr: [1] });
    // alpha 0-3 | alpha 4 + beta 0-2 (the page is full at a topic's end: resume at gamma 0) | gamma 0-3
    expect(asked.map((a) => a.cursor)).toEqual([null, { topicName: 'alpha', partitionIndex: 4 }, { topicName: 'gamma', partitionIndex: 0 }]);
  });

  it('stops on a cursor that does not advance, and after the pages the partition count allows', async () => {
    const stuck = fakeBroker({ alpha: healthy(10) }, { stuck: true });
    const r1 = await readPartitionDetails(stuck.conn, { topics: null, expectedPartitions: 10, pageBudget: () => 1000, pageSize: 4 });
    expect(r1).toMatchObject({ status: 'failed', reason: expect.stringMatching(/cursor did not advance/) });
    expect(stuck.asked.length).toBeLessThanOrEqual(3);

    // The cluster has far more partitions than Metadata said: bounded all the same.
    const many = fakeBroker({ alpha: healthy(100) });
    const r2 = await readPartitionDetails(many.conn, { topics: null, expectedPartitions: 4, pageBudget: () => 1000, pageSize: 2 });
    expect(r2).toMatchObject({ status: 'failed', reason: expect.stringMatching(/still more after 4 pages/) });
    expect(many.asked.length).toBe(4);
  });

  it('says unsupported when the broker does not list API 75 (ZooKeeper mode, KRaft before 3.8), without asking', async () => {
    const { conn, asked } = fakeBroker({ alpha: healthy(1) }, { supports: false });
    expect(await readPartitionDetails(conn, { topics: null, expectedPartitions: 1, pageBudget: () => 1000 })).toMatchObject({ status: 'unsupported' });
    expect(asked).toEqual([]);
  });
});

describe('readElrInto (the snapshot step)', () => {
  const topics = (): TopicState[] => [
    {
      name: 'orders',
      internal: false,
      config: null,
      partitions: [
        { partition: 0, leader: -1, replicas: [1, 2, 3], isr: [], offlineReplicas: [1] },
        { partition: 1, leader: 2, replicas: [1, 2, 3], isr: [2, 3], offlineReplicas: [1] },
      ],
    },
  ];

  it('fills elr / lastKnownElr (and the ISR read with them) from one broker', async () => {
    const ts = topics();
    const { conn, asked } = fakeBroker({ orders: [{ leader: -1, isr: [], elr: [3], lastKnownElr: [1] }, { leader: 2, isr: [2, 3], elr: [], lastKnownElr: [] }] });
    const errors: SnapshotError[] = [];
    expect(await readElrInto(ts, [conn, fakeBroker({}).conn], null, () => 1000, errors)).toBe('DescribeTopicPartitions');
    expect(ts[0]!.partitions.map((p) => [p.isr, p.elr, p.lastKnownElr])).toEqual([
      [[], [3], [1]],
      [[2, 3], [], []],
    ]);
    expect(asked).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('keeps Metadata and leaves elr unset where the broker lacks the API; a failure is recorded and the next broker asked', async () => {
    const ts = topics();
    expect(await readElrInto(ts, [fakeBroker({}, { supports: false }).conn], null, () => 1000, [])).toBe('Metadata');
    expect(ts[0]!.partitions.every((p) => p.elr === undefined && p.lastKnownElr === undefined)).toBe(true);

    const errors: SnapshotError[] = [];
    const failing = fakeBroker({ orders: healthy(2) }, { failOnPage: 1 });
    const second = fakeBroker({ orders: [{ leader: -1, isr: [], elr: [], lastKnownElr: [1] }, ...healthy(1)] });
    expect(await readElrInto(ts, [failing.conn, second.conn], ['orders'], () => 1000, errors)).toBe('DescribeTopicPartitions');
    expect(second.asked[0]!.topics).toEqual(['orders']);
    expect(ts[0]!.partitions[0]!.lastKnownElr).toEqual([1]);

    const ts2 = topics();
    const errors2: SnapshotError[] = [];
    expect(await readElrInto(ts2, [fakeBroker({}, { failOnPage: 1 }).conn, fakeBroker({}, { failOnPage: 1 }).conn], null, () => 1000, errors2)).toBe('Metadata');
    expect(errors2).toEqual([{ scope: 'elr', message: expect.stringMatching(/^eligible leader replicas unknown: socket hang up; socket hang up$/) }]);
    expect(ts2[0]!.partitions[0]!.elr).toBeUndefined();
  });

  it('applyPartitionDetails leaves partitions the answer did not cover as Metadata had them', () => {
    const ts = topics();
    applyPartitionDetails(ts, new Map([['orders', new Map([[1, { errorCode: 0, partitionIndex: 1, leaderId: 3, leaderEpoch: 2, replicaNodes: [1, 2, 3], isrNodes: [3], eligibleLeaderReplicas: [2], lastKnownElr: [], offlineReplicas: [1] }]])]]));
    expect(ts[0]!.partitions[0]).toEqual({ partition: 0, leader: -1, replicas: [1, 2, 3], isr: [], offlineReplicas: [1] });
    expect(ts[0]!.partitions[1]).toMatchObject({ leader: 3, isr: [3], elr: [2], lastKnownElr: [] });
  });
});
