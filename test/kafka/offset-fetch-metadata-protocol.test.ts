// OffsetFetch (API 9) and Metadata (API 3): byte-level encode/decode against
// bytes produced by Kafka 4.4.0's own generated classes (OffsetFetchRequestData /
// ResponseData, MetadataRequestData / ResponseData serialized with
// MessageUtil.toByteBufferAccessor(message, version)), and round trips.

import { describe, expect, it } from 'vitest';
import { OffsetFetch } from '../../lib/kafka/api/offset-fetch/codec.ts';
import { Metadata } from '../../lib/kafka/api/metadata/codec.ts';
import { Writer } from '../../lib/kafka/protocol/codec.ts';

const hex = (b: Buffer) => b.toString('hex');
const bytes = (h: string) => Buffer.from(h, 'hex');

const JAVA = {
  // g1: every partition (null topics); g2: orders [0, 2]; RequireStable false
  offsetFetchRequestV8: '03036731000003673202076f726465727303000000000000000200000000',
  // g2: orders [0, 2] (v1, v4 identical; v6 flexible; v7 adds RequireStable)
  offsetFetchRequest: { 8: '03036731000003673202076f726465727303000000000000000200000000', 1: '000267320000000100066f7264657273000000020000000000000002', 4: '000267320000000100066f7264657273000000020000000000000002', 6: '03673202076f72646572730300000000000000020000', 7: '03673202076f7264657273030000000000000002000000' },
  offsetFetchRequestAllV4: '00026731ffffffff',
  // throttle 5; g1: orders p0 offset 42 epoch 3 metadata "m", p1 no offset (-1) metadata null; g2 NOT_COORDINATOR
  offsetFetchResponseV8: '000000050303673102076f72646572730300000000000000000000002a00000003026d00000000000001ffffffffffffffffffffffff00000000000000000367320100100000',
  // throttle 5 (v3+), COORDINATOR_LOAD_IN_PROGRESS (v2+); orders p0 offset 1234567890123 epoch 3 (v5+) metadata ""
  offsetFetchResponse: { 1: '0000000100066f726465727300000001000000000000011f71fb04cb00000000', 4: '000000050000000100066f726465727300000001000000000000011f71fb04cb00000000000e', 6: '0000000502076f726465727302000000000000011f71fb04cb000000030100000000000e00' },
  metadataRequestAll: { 1: 'ffffffff', 4: 'ffffffff00', 8: 'ffffffff000000', 9: '0000000000', 10: '0000000000', 11: '00000000', 12: '00000000' },
  metadataRequestNamed: { 1: '0000000100066f7264657273', 4: '0000000100066f726465727300', 8: '0000000100066f7264657273000000', 9: '02076f72646572730000000000', 10: '0200000000000000000000000000000000076f72646572730000000000', 11: '0200000000000000000000000000000000076f726465727300000000', 12: '0200000000000000000000000000000000076f726465727300000000' },
  // throttle 3; brokers 1 (h1:9092, rack r1) and 2 (h2:9093, no rack); cluster c1, controller 2;
  // orders (id 0102…10): p0 leader 1 epoch 4 [1,2] isr [1,2]; p1 LEADER_NOT_AVAILABLE, leader -1 epoch 5, [2], isr [], offline [2];
  // __consumer_offsets internal, no partitions; missing UNKNOWN_TOPIC_OR_PARTITION
  metadataResponse: { 1: '0000000200000001000268310000238400027231000000020002683200002385ffff0000000200000003000000066f7264657273000000000200000000000000000001000000020000000100000002000000020000000100000002000500000001ffffffff000000010000000200000000000000125f5f636f6e73756d65725f6f6666736574730100000000000300076d697373696e670000000000', 5: '000000030000000200000001000268310000238400027231000000020002683200002385ffff000263310000000200000003000000066f726465727300000000020000000000000000000100000002000000010000000200000002000000010000000200000000000500000001ffffffff0000000100000002000000000000000100000002000000125f5f636f6e73756d65725f6f6666736574730100000000000300076d697373696e670000000000', 7: '000000030000000200000001000268310000238400027231000000020002683200002385ffff000263310000000200000003000000066f72646572730000000002000000000000000000010000000400000002000000010000000200000002000000010000000200000000000500000001ffffffff000000050000000100000002000000000000000100000002000000125f5f636f6e73756d65725f6f6666736574730100000000000300076d697373696e670000000000', 8: '000000030000000200000001000268310000238400027231000000020002683200002385ffff000263310000000200000003000000066f72646572730000000002000000000000000000010000000400000002000000010000000200000002000000010000000200000000000500000001ffffffff00000005000000010000000200000000000000010000000280000000000000125f5f636f6e73756d65725f6f666673657473010000000080000000000300076d697373696e6700000000008000000080000000', 9: '00000003030000000103683100002384037231000000000203683200002385000003633100000002040000076f7264657273000300000000000000000001000000040300000001000000020300000001000000020100000500000001ffffffff0000000502000000020102000000020080000000000000135f5f636f6e73756d65725f6f666673657473010180000000000003086d697373696e67000180000000008000000000', 10: '00000003030000000103683100002384037231000000000203683200002385000003633100000002040000076f72646572730102030405060708090a0b0c0d0e0f10000300000000000000000001000000040300000001000000020300000001000000020100000500000001ffffffff0000000502000000020102000000020080000000000000135f5f636f6e73756d65725f6f66667365747300000000000000000000000000000000010180000000000003086d697373696e6700000000000000000000000000000000000180000000008000000000', 12: '00000003030000000103683100002384037231000000000203683200002385000003633100000002040000076f72646572730102030405060708090a0b0c0d0e0f10000300000000000000000001000000040300000001000000020300000001000000020100000500000001ffffffff0000000502000000020102000000020080000000000000135f5f636f6e73756d65725f6f66667365747300000000000000000000000000000000010180000000000003086d697373696e67000000000000000000000000000000000001800000000000' },
};

describe('OffsetFetch matches Kafka 4.4.0 byte for byte', () => {
  const g2 = { groupId: 'g2', topics: [{ topic: 'orders', partitions: [0, 2] }] };

  it('v8 carries many groups, each with its topics or null for every partition', () => {
    expect(hex(OffsetFetch.encode(8, { groups: [{ groupId: 'g1', topics: null }, g2] }))).toBe(JAVA.offsetFetchRequestV8);
  });

  it('v1-v7 carry one group; null topics from v2 on; more than one group before v8 is refused', () => {
    for (const v of [1, 4, 6, 7] as const) expect(hex(OffsetFetch.encode(v, { groups: [g2] })), `v${v}`).toBe(JAVA.offsetFetchRequest[v]);
    expect(hex(OffsetFetch.encode(4, { groups: [{ groupId: 'g1', topics: null }] }))).toBe(JAVA.offsetFetchRequestAllV4);
    expect(() => OffsetFetch.encode(7, { groups: [g2, g2] })).toThrow(/one group, not 2/);
    expect(() => OffsetFetch.encode(1, { groups: [{ groupId: 'g1', topics: null }] })).toThrow(/every partition/);
  });

  it('decodes v8 per group: offsets, leader epoch, null metadata, a group-level error', () => {
    expect(OffsetFetch.decode(8, bytes(JAVA.offsetFetchResponseV8))).toEqual({
      throttleTimeMs: 5,
      groups: [
        {
          groupId: 'g1',
          errorCode: 0,
          topics: [
            {
              name: 'orders',
              partitions: [
                { partition: 0, committedOffset: 42, committedLeaderEpoch: 3, metadata: 'm', errorCode: 0 },
                { partition: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: null, errorCode: 0 },
              ],
            },
          ],
        },
        { groupId: 'g2', errorCode: 16, topics: [] },
      ],
    });
  });

  it('decodes v1-v7 as one unnamed group, with the top-level error from v2 and the epoch from v5', () => {
    const partition = (epoch: number) => ({ partition: 0, committedOffset: 1234567890123, committedLeaderEpoch: epoch, metadata: '', errorCode: 0 });
    expect(OffsetFetch.decode(1, bytes(JAVA.offsetFetchResponse[1]))).toEqual({ throttleTimeMs: 0, groups: [{ groupId: null, errorCode: 0, topics: [{ name: 'orders', partitions: [partition(-1)] }] }] });
    expect(OffsetFetch.decode(4, bytes(JAVA.offsetFetchResponse[4]))).toEqual({ throttleTimeMs: 5, groups: [{ groupId: null, errorCode: 14, topics: [{ name: 'orders', partitions: [partition(-1)] }] }] });
    expect(OffsetFetch.decode(6, bytes(JAVA.offsetFetchResponse[6]))).toEqual({ throttleTimeMs: 5, groups: [{ groupId: null, errorCode: 14, topics: [{ name: 'orders', partitions: [partition(3)] }] }] });
  });

  it('round-trips an answer written with our Writer, and a truncated answer is a protocol error', () => {
    const groups = Array.from({ length: 3 }, (_, g) => ({ groupId: `g${g}`, errorCode: g === 2 ? 15 : 0, topics: g === 2 ? [] : [{ name: 't', partitions: [{ partition: g, committedOffset: 2 ** 40 + g, committedLeaderEpoch: g, metadata: null, errorCode: 0 }] }] }));
    const w = new Writer(true).int32(0);
    w.array(groups, (w, g) => {
      w.string(g.groupId).array(g.topics, (w, t) => {
        w.string(t.name).array(t.partitions, (w, p) => w.int32(p.partition).int64(p.committedOffset).int32(p.committedLeaderEpoch).string(p.metadata).int16(p.errorCode).tags()).tags();
      });
      w.int16(g.errorCode).tags();
    });
    expect(OffsetFetch.decode(8, w.tags().buffer)).toEqual({ throttleTimeMs: 0, groups });
    expect(() => OffsetFetch.decode(8, bytes(JAVA.offsetFetchResponseV8).subarray(0, 30))).toThrow(/truncated response/);
    expect(() => OffsetFetch.encode(9, { groups: [g2] })).toThrow(/not implemented/);
  });
});

describe('Metadata matches Kafka 4.4.0 byte for byte', () => {
  it('encodes every topic (null) and named topics, from v1 to v12', () => {
    for (const v of [1, 4, 8, 9, 10, 11, 12] as const) {
      expect(hex(Metadata.encode(v, { topics: null, allowAutoTopicCreation: false })), `all v${v}`).toBe(JAVA.metadataRequestAll[v]);
      expect(hex(Metadata.encode(v, { topics: ['orders'], allowAutoTopicCreation: false })), `named v${v}`).toBe(JAVA.metadataRequestNamed[v]);
    }
  });

  it('[] asks for no topic (brokers and controller only)', () => {
    expect(hex(Metadata.encode(6, { topics: [], allowAutoTopicCreation: false }))).toBe('0000000000');
    expect(hex(Metadata.encode(12, { topics: [], allowAutoTopicCreation: false }))).toBe('01000000');
  });

  it('decodes brokers, controller, topics, partitions with their errors, epochs and offline replicas at every version', () => {
    for (const v of [1, 5, 7, 8, 9, 10, 12] as const) {
      const md = Metadata.decode(v, bytes(JAVA.metadataResponse[v]));
      expect(md.throttleTimeMs, `v${v}`).toBe(v >= 3 ? 3 : 0);
      expect(md.brokers).toEqual([
        { nodeId: 1, host: 'h1', port: 9092, rack: 'r1' },
        { nodeId: 2, host: 'h2', port: 9093, rack: null },
      ]);
      expect(md.clusterId).toBe(v >= 2 ? 'c1' : null);
      expect(md.controllerId).toBe(2);
      expect(md.topicMetadata.map((t) => [t.topic, t.topicErrorCode, t.isInternal, t.partitionMetadata.length])).toEqual([
        ['orders', 0, false, 2],
        ['__consumer_offsets', 0, true, 0],
        ['missing', 3, false, 0],
      ]);
      expect(md.topicMetadata[0]!.partitionMetadata).toEqual([
        { partitionErrorCode: 0, partitionId: 0, leader: 1, leaderEpoch: v >= 7 ? 4 : -1, replicas: [1, 2], isr: [1, 2], offlineReplicas: [] },
        { partitionErrorCode: 5, partitionId: 1, leader: -1, leaderEpoch: v >= 7 ? 5 : -1, replicas: [2], isr: [], offlineReplicas: v >= 5 ? [2] : [] },
      ]);
    }
  });

  it('a truncated answer is a protocol error; v0 and v13 are not ours', () => {
    expect(() => Metadata.decode(12, bytes(JAVA.metadataResponse[12]).subarray(0, 70))).toThrow(/truncated response/);
    expect(() => Metadata.encode(0, { topics: null, allowAutoTopicCreation: false })).toThrow(/not implemented/);
    expect(() => Metadata.encode(13, { topics: null, allowAutoTopicCreation: false })).toThrow(/not implemented/);
  });
});
