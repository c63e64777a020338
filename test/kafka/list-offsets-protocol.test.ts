// ListOffsets (API 2): byte-level encode/decode against bytes produced by Kafka
// 4.4.0's own generated classes (ListOffsetsRequestData / ResponseData via
// MessageUtil.toByteBufferAccessor(message, version)), and the Writer's one
// growing buffer against the bytes written field by field.

import { describe, expect, it } from 'vitest';
import { ListOffsets, type ListOffsetsArgs } from '../../lib/kafka/api/list-offsets/codec.ts';
import { Reader, Writer } from '../../lib/kafka/protocol/codec.ts';

const hex = (b: Buffer) => b.toString('hex');
const bytes = (h: string) => Buffer.from(h, 'hex');

const JAVA = {
  // ReplicaId -1, READ_COMMITTED (v2+); orders p0 latest (-1), p3 earliest (-2); CurrentLeaderEpoch -1 (v4+)
  request: { 1: 'ffffffff0000000100066f72646572730000000200000000ffffffffffffffff00000003fffffffffffffffe', 2: 'ffffffff010000000100066f72646572730000000200000000ffffffffffffffff00000003fffffffffffffffe', 4: 'ffffffff010000000100066f72646572730000000200000000ffffffffffffffffffffffff00000003fffffffffffffffffffffffe', 6: 'ffffffff0102076f72646572730300000000ffffffffffffffffffffffff0000000003fffffffffffffffffffffffe000000', 7: 'ffffffff0102076f72646572730300000000ffffffffffffffffffffffff0000000003fffffffffffffffffffffffe000000', 9: 'ffffffff0102076f72646572730300000000ffffffffffffffffffffffff0000000003fffffffffffffffffffffffe000000' } as Record<number, string>,
  // throttle 4 (v2+); orders p0 offset 9876543210 epoch 6 (v4+); p3 NOT_LEADER_OR_FOLLOWER
  response: { 1: '0000000100066f726465727300000002000000000000ffffffffffffffff000000024cb016ea000000030006ffffffffffffffffffffffffffffffff', 2: '000000040000000100066f726465727300000002000000000000ffffffffffffffff000000024cb016ea000000030006ffffffffffffffffffffffffffffffff', 4: '000000040000000100066f726465727300000002000000000000ffffffffffffffff000000024cb016ea00000006000000030006ffffffffffffffffffffffffffffffffffffffff', 6: '0000000402076f726465727303000000000000ffffffffffffffff000000024cb016ea0000000600000000030006ffffffffffffffffffffffffffffffffffffffff000000', 7: '0000000402076f726465727303000000000000ffffffffffffffff000000024cb016ea0000000600000000030006ffffffffffffffffffffffffffffffffffffffff000000', 9: '0000000402076f726465727303000000000000ffffffffffffffff000000024cb016ea0000000600000000030006ffffffffffffffffffffffffffffffffffffffff000000' } as Record<number, string>,
};

const args = (isolationLevel: number): ListOffsetsArgs => ({
  replicaId: -1,
  isolationLevel,
  topics: [{ topic: 'orders', partitions: [{ partition: 0, timestamp: -1 }, { partition: 3, timestamp: -2 }] }],
});

describe('ListOffsets matches Kafka 4.4.0 byte for byte', () => {
  it('encodes v1 to v9', () => {
    for (const v of [1, 2, 4, 6, 7, 9]) expect(hex(ListOffsets.encode(v, args(v >= 2 ? 1 : 0))), `v${v}`).toBe(JAVA.request[v]);
  });

  it('decodes offsets, per-partition errors and leader epochs at every version', () => {
    for (const v of [1, 2, 4, 6, 7, 9]) {
      expect(ListOffsets.decode(v, bytes(JAVA.response[v]!)), `v${v}`).toEqual({
        throttleTimeMs: v >= 2 ? 4 : 0,
        topics: [
          {
            name: 'orders',
            partitions: [
              { partition: 0, errorCode: 0, timestamp: -1, offset: 9876543210, leaderEpoch: v >= 4 ? 6 : -1 },
              { partition: 3, errorCode: 6, timestamp: -1, offset: -1, leaderEpoch: -1 },
            ],
          },
        ],
      });
    }
  });

  it('v0 (removed in Kafka 4.0) and v10 are not ours; a truncated answer is a protocol error', () => {
    expect(() => ListOffsets.encode(0, args(0))).toThrow(/not implemented/);
    expect(() => ListOffsets.encode(10, args(0))).toThrow(/not implemented/);
    expect(() => ListOffsets.decode(7, bytes(JAVA.response[7]!).subarray(0, 20))).toThrow(/truncated response/);
  });
});

describe('Writer: one growing buffer', () => {
  it('writes past its first 256 bytes exactly as field-by-field buffers would, and reads back', () => {
    for (const flexible of [false, true]) {
      const w = new Writer(flexible);
      const expected: Buffer[] = [];
      const varint = (n: number) => {
        const out: number[] = [];
        while (n > 0x7f) {
          out.push((n & 0x7f) | 0x80);
          n = Math.floor(n / 128);
        }
        out.push(n);
        return Buffer.from(out);
      };
      for (let i = 0; i < 300; i++) {
        const s = `topic-${i}-é`;
        const sb = Buffer.from(s, 'utf8');
        const i32 = Buffer.alloc(4);
        i32.writeInt32BE(0 - i || 0);
        const i64 = Buffer.alloc(8);
        i64.writeBigInt64BE(BigInt(i * 2 ** 33 - 5));
        w.string(s).int32(0 - i || 0).int64(i * 2 ** 33 - 5);
        const len = flexible ? varint(sb.length + 1) : Buffer.from([sb.length >> 8, sb.length & 0xff]);
        expected.push(len, sb, i32, i64);
      }
      w.uvarint(300);
      expected.push(varint(300));
      expect(hex(w.buffer)).toBe(hex(Buffer.concat(expected)));
      const r = new Reader(w.buffer, flexible);
      for (let i = 0; i < 300; i++) expect([r.string(), r.int32(), r.int64()]).toEqual([`topic-${i}-é`, 0 - i || 0, i * 2 ** 33 - 5]);
      expect(r.uvarint()).toBe(300);
    }
  });
});
