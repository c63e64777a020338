// Byte-level checks of the request definitions kafkajs lacks (lib/kafka/api/<name>/codec.ts)
// and of how wire.ts frames them. No Kafka needed.
//
// The expected bytes were produced by Kafka 4.1.1's own generated message
// classes (org.apache.kafka.common.message.*Data, serialized with
// MessageUtil.toByteBufferAccessor(message, version)), so they are Kafka's
// encoding, not ours read back.

import { createRequire } from 'node:module';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KafkaAdminError, describeError, openAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import { AlterPartitionReassignments } from '../../lib/kafka/api/alter-partition-reassignments/codec.ts';
import { Reader, Writer } from '../../lib/kafka/protocol/codec.ts';
import { DescribeLogDirs } from '../../lib/kafka/api/describe-log-dirs/codec.ts';
import { ElectLeaders } from '../../lib/kafka/api/elect-leaders/codec.ts';
import { IncrementalAlterConfigs } from '../../lib/kafka/api/incremental-alter-configs/codec.ts';
import { pickVersion, toRequestDefinition } from '../../lib/kafka/wire.ts';
import { kafkaError } from '../../lib/kafka/errors.ts';

const require = createRequire(import.meta.url);
const hex = (b: Buffer) => b.toString('hex');
const bytes = (h: string) => Buffer.from(h, 'hex');

// ------------------------------------------------------------ Kafka 4.1.1's bytes

const JAVA = {
  electLeadersRequest: {
    // ElectionType 1 (unclean), orders [0, 2], TimeoutMs 30000
    1: '010000000100066f726465727300000002000000000000000200007530',
    2: '0102076f7264657273030000000000000002000000753000',
  },
  // orders-0 ok; orders-2 ELECTION_NOT_NEEDED with a message and an unknown tagged field (tag 7, 3 bytes)
  electLeadersResponseV2:
    '00000000000002076f7264657273030000000000000000000000020054304c656164657220656c656374696f6e206e6f74206e656564656420666f7220746f70696320706172746974696f6e2e0107030102030000',
  incrementalAlterConfigsRequest: {
    // broker "1": SET leader.replication.throttled.rate=1048576, DELETE follower.replication.throttled.rate;
    // topic orders: APPEND leader.replication.throttled.replicas=0:1,0:2; ValidateOnly false
    0: '00000002040001310000000200216c65616465722e7265706c69636174696f6e2e7468726f74746c65642e72617465000007313034383537360023666f6c6c6f7765722e7265706c69636174696f6e2e7468726f74746c65642e7261746501ffff0200066f72646572730000000100256c65616465722e7265706c69636174696f6e2e7468726f74746c65642e7265706c69636173020007303a312c303a3200',
    1: '0304023103226c65616465722e7265706c69636174696f6e2e7468726f74746c65642e726174650008313034383537360024666f6c6c6f7765722e7265706c69636174696f6e2e7468726f74746c65642e726174650100000002076f726465727302266c65616465722e7265706c69636174696f6e2e7468726f74746c65642e7265706c696361730208303a312c303a3200000000',
  },
  incrementalAlterConfigsResponse: {
    0: '00000005000000020000ffff04000131002a0030556e65787065637465642062726f6b65722069642c20657870656374656420322c2062757420726563656976656420310200066f7264657273',
    1: '000000050300000004023100002a31556e65787065637465642062726f6b65722069642c20657870656374656420322c20627574207265636569766564203102076f72646572730000',
  },
  describeLogDirsRequest: {
    1: '0000000100066f7264657273000000020000000000000001',
    2: '02076f72646572730300000000000000010000',
    3: '02076f72646572730300000000000000010000',
    4: '02076f72646572730300000000000000010000',
  },
  describeLogDirsRequestAll: { 1: 'ffffffff', 2: '0000' },
  // /data/kafka-logs: orders-0 123456789012 bytes, orders-1 42 bytes lag 7 future; /data2/kafka-logs KAFKA_STORAGE_ERROR (57)
  describeLogDirsResponse: {
    1: '0000000000000002000000102f646174612f6b61666b612d6c6f67730000000100066f726465727300000002000000000000001cbe991a1400000000000000000000000001000000000000002a000000000000000701003900112f64617461322f6b61666b612d6c6f677300000000',
    2: '00000000030000112f646174612f6b61666b612d6c6f677302076f726465727303000000000000001cbe991a140000000000000000000000000001000000000000002a0000000000000007010000000039122f64617461322f6b61666b612d6c6f6773010000',
    3: '000000000000030000112f646174612f6b61666b612d6c6f677302076f726465727303000000000000001cbe991a140000000000000000000000000001000000000000002a0000000000000007010000000039122f64617461322f6b61666b612d6c6f6773010000',
    4: '000000000000030000112f646174612f6b61666b612d6c6f677302076f726465727303000000000000001cbe991a140000000000000000000000000001000000000000002a0000000000000007010000000000e8d4a510000000005d21dba000000039122f64617461322f6b61666b612d6c6f677301ffffffffffffffffffffffffffffffff0000',
  },
  // TimeoutMs 30000; orders-0 → [2, 3], orders-1 → null (cancel)
  alterPartitionReassignmentsRequestV0: '0000753002076f72646572730300000000030000000200000003000000000100000000',
  alterPartitionReassignmentsResponseV0:
    '0000000000000002076f72646572730300000000000000000000000100551c4e6f20726561737369676e6d656e7420696e2070726f6772657373000000',
};

const electArgs = { electionType: 'unclean' as const, partitions: [{ topic: 'orders', partition: 0 }, { topic: 'orders', partition: 2 }], timeoutMs: 30_000 };
const iacArgs = {
  resources: [
    {
      type: 'broker' as const,
      name: '1',
      ops: [
        { name: 'leader.replication.throttled.rate', op: 'set' as const, value: '1048576' },
        { name: 'follower.replication.throttled.rate', op: 'delete' as const, value: null },
      ],
    },
    { type: 'topic' as const, name: 'orders', ops: [{ name: 'leader.replication.throttled.replicas', op: 'append' as const, value: '0:1,0:2' }] },
  ],
};

describe('request encoders match Kafka 4.1.1 byte for byte', () => {
  it('ElectLeaders v1 (classic) and v2 (flexible)', () => {
    expect(hex(ElectLeaders.encode(1, electArgs))).toBe(JAVA.electLeadersRequest[1]);
    expect(hex(ElectLeaders.encode(2, electArgs))).toBe(JAVA.electLeadersRequest[2]);
  });

  it('IncrementalAlterConfigs v0 and v1, nullable value for DELETE', () => {
    expect(hex(IncrementalAlterConfigs.encode(0, iacArgs))).toBe(JAVA.incrementalAlterConfigsRequest[0]);
    expect(hex(IncrementalAlterConfigs.encode(1, iacArgs))).toBe(JAVA.incrementalAlterConfigsRequest[1]);
  });

  it('DescribeLogDirs v1-v4, for some partitions and for all (null topics)', () => {
    const partitions = [{ topic: 'orders', partition: 0 }, { topic: 'orders', partition: 1 }];
    for (const v of [1, 2, 3, 4] as const) expect(hex(DescribeLogDirs.encode(v, { partitions })), `v${v}`).toBe(JAVA.describeLogDirsRequest[v]);
    expect(hex(DescribeLogDirs.encode(1, { partitions: null }))).toBe(JAVA.describeLogDirsRequestAll[1]);
    expect(hex(DescribeLogDirs.encode(2, { partitions: null }))).toBe(JAVA.describeLogDirsRequestAll[2]);
  });

  it('AlterPartitionReassignments v0 with a null replica list (cancel)', () => {
    const args = { targets: [{ topic: 'orders', partition: 0, replicas: [2, 3] }, { topic: 'orders', partition: 1, replicas: null }], timeoutMs: 30_000 };
    expect(hex(AlterPartitionReassignments.encode(0, args))).toBe(JAVA.alterPartitionReassignmentsRequestV0);
  });

  it('refuses versions it does not implement', () => {
    expect(() => ElectLeaders.encode(0, electArgs)).toThrow(/ElectLeaders v0 is not implemented/);
    expect(() => DescribeLogDirs.encode(0, { partitions: null })).toThrow(/not implemented/);
  });
});

describe('response decoders read Kafka 4.1.1 bytes', () => {
  it('ElectLeaders v2, skipping an unknown tagged field', () => {
    expect(ElectLeaders.decode(2, bytes(JAVA.electLeadersResponseV2))).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      results: [
        {
          topic: 'orders',
          partitions: [
            { partition: 0, errorCode: 0, errorMessage: null },
            { partition: 2, errorCode: 84, errorMessage: 'Leader election not needed for topic partition.' },
          ],
        },
      ],
    });
  });

  it('IncrementalAlterConfigs v0 and v1', () => {
    for (const v of [0, 1] as const) {
      expect(IncrementalAlterConfigs.decode(v, bytes(JAVA.incrementalAlterConfigsResponse[v]))).toEqual({
        throttleTimeMs: 5,
        responses: [
          { errorCode: 0, errorMessage: null, resourceType: 4, resourceName: '1' },
          { errorCode: 42, errorMessage: 'Unexpected broker id, expected 2, but received 1', resourceType: 2, resourceName: 'orders' },
        ],
      });
    }
  });

  it('DescribeLogDirs v1-v4: int64 sizes, top-level error from v3, volume bytes from v4', () => {
    for (const v of [1, 2, 3, 4] as const) {
      const d = DescribeLogDirs.decode(v, bytes(JAVA.describeLogDirsResponse[v]));
      expect(d.errorCode).toBe(0);
      expect(d.results).toEqual([
        {
          errorCode: 0,
          logDir: '/data/kafka-logs',
          topics: [
            {
              name: 'orders',
              partitions: [
                { partition: 0, sizeBytes: 123_456_789_012, offsetLag: 0, isFuture: false },
                { partition: 1, sizeBytes: 42, offsetLag: 7, isFuture: true },
              ],
            },
          ],
          totalBytes: v >= 4 ? 1_000_000_000_000 : -1,
          usableBytes: v >= 4 ? 400_000_000_000 : -1,
        },
        { errorCode: 57, logDir: '/data2/kafka-logs', topics: [], totalBytes: -1, usableBytes: -1 },
      ]);
    }
  });

  it('AlterPartitionReassignments v0: per-partition errors', () => {
    expect(AlterPartitionReassignments.decode(0, bytes(JAVA.alterPartitionReassignmentsResponseV0))).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      responses: [
        {
          name: 'orders',
          partitions: [
            { partition: 0, errorCode: 0, errorMessage: null },
            { partition: 1, errorCode: 85, errorMessage: 'No reassignment in progress' },
          ],
        },
      ],
    });
  });

  it('a truncated response is a clear error, not garbage', () => {
    const cut = bytes(JAVA.describeLogDirsResponse[4]).subarray(0, 40);
    expect(() => DescribeLogDirs.decode(4, cut)).toThrow(/truncated response/);
  });
});

describe('framing through kafkajs (request header v2 / response header v1 for flexible versions)', () => {
  const createRequest = require('kafkajs/src/protocol/request.js') as (o: {
    correlationId: number;
    clientId: string;
    request: unknown;
  }) => Promise<{ buffer: Buffer }>;

  it('a whole ElectLeaders v2 request on the wire: size, key, version, correlation id, client id, header tags, body', async () => {
    const { request } = toRequestDefinition(ElectLeaders).protocol({ version: 2 })(electArgs) as { request: unknown };
    const wire = (await createRequest({ correlationId: 7, clientId: 'kr', request })).buffer;
    const body = bytes(JAVA.electLeadersRequest[2]);
    const header = Buffer.concat([bytes('002b'), bytes('0002'), bytes('00000007'), bytes('00026b72'), bytes('00')]);
    const size = Buffer.alloc(4);
    size.writeInt32BE(header.length + body.length);
    expect(hex(wire)).toBe(hex(Buffer.concat([size, header, body])));
  });

  it('a classic version (ElectLeaders v1) has no header tag section', async () => {
    const { request } = toRequestDefinition(ElectLeaders).protocol({ version: 1 })(electArgs) as { request: unknown };
    const wire = (await createRequest({ correlationId: 7, clientId: 'kr', request })).buffer;
    expect(hex(wire.subarray(4 + 2 + 2 + 4 + 4))).toBe(JAVA.electLeadersRequest[1]);
  });

  it('decodes a flexible response after its header tag section, even a non-empty one', async () => {
    const { response } = toRequestDefinition(ElectLeaders).protocol({ version: 2 })(electArgs) as { response: { decode(b: Buffer): Promise<unknown> } };
    // Response header v1 tags: one field, tag 0, 2 bytes.
    const payload = Buffer.concat([bytes('0100' + '02' + 'abcd'), bytes(JAVA.electLeadersResponseV2)]);
    expect(await response.decode(payload)).toMatchObject({ errorCode: 0, results: [{ topic: 'orders' }] });
  });
});

describe('version negotiation', () => {
  it('takes the highest version both sides support', () => {
    expect(pickVersion([1, 2], { minVersion: 0, maxVersion: 2 })).toBe(2);
    expect(pickVersion([1, 2, 3, 4], { minVersion: 0, maxVersion: 2 })).toBe(2); // Kafka 2.8 DescribeLogDirs
  });

  it("respects the broker's minimum, raised by Kafka 4.0 (KIP-896), which kafkajs's lookup ignores", () => {
    expect(pickVersion([0, 1, 2, 3], { minVersion: 1, maxVersion: 10 })).toBe(3); // ListOffsets on 4.x
    expect(pickVersion([0], { minVersion: 1, maxVersion: 4 })).toBeNull(); // DescribeLogDirs v0 on 4.x
    expect(pickVersion([0, 1], undefined)).toBeNull(); // API absent
  });
});

describe('codec primitives', () => {
  it('round-trips classic and compact encodings, varint boundaries included', () => {
    for (const flexible of [false, true]) {
      const w = new Writer(flexible);
      w.int8(-2).int16(-300).int32(2 ** 31 - 1).int64(2 ** 53 - 1).int64(-1).bool(true);
      w.string('héllo').string(null).string('');
      w.array([1, 2, 3], (w, v) => w.int32(v)).int32Array(null).int32Array([]);
      for (const v of [0, 127, 128, 16383, 16384, 2 ** 32 - 1]) w.uvarint(v);
      w.tags();
      const r = new Reader(w.buffer, flexible);
      expect([r.int8(), r.int16(), r.int32(), r.int64(), r.int64(), r.bool()]).toEqual([-2, -300, 2 ** 31 - 1, 2 ** 53 - 1, -1, true]);
      expect([r.string(), r.string(), r.string()]).toEqual(['héllo', null, '']);
      expect([r.int32Array(), r.int32Array(), r.int32Array()]).toEqual([[1, 2, 3], null, []]);
      expect([0, 1, 2, 3, 4, 5].map(() => r.uvarint())).toEqual([0, 127, 128, 16383, 16384, 2 ** 32 - 1]);
      r.tags();
      expect(r.remaining).toBe(0);
    }
  });

  it('writes varints as LEB128 and compact lengths as length + 1', () => {
    expect(hex(new Writer(true).uvarint(300).buffer)).toBe('ac02');
    expect(hex(new Writer(true).string('ab').buffer)).toBe('036162');
    expect(hex(new Writer(false).string('ab').buffer)).toBe('00026162');
    expect(hex(new Writer(true).int32Array(null).buffer)).toBe('00');
    expect(hex(new Writer(false).int32Array(null).buffer)).toBe('ffffffff');
  });
});

describe('error names are Kafka 4.1.1 names', () => {
  it('including the codes kafkajs 2.2.4 names differently or does not know', () => {
    expect(kafkaError(84).type).toBe('ELECTION_NOT_NEEDED');
    expect(kafkaError(6).type).toBe('NOT_LEADER_OR_FOLLOWER');
    expect(kafkaError(-1).type).toBe('UNKNOWN_SERVER_ERROR');
    expect(kafkaError(107).type).toBe('INELIGIBLE_REPLICA');
    expect(kafkaError(133).type).toBe('SHARE_SESSION_LIMIT_REACHED');
    expect(describeError(0)).toBeNull();
    expect(describeError(85, 'No reassignment in progress for orders-1')).toBe('NO_REASSIGNMENT_IN_PROGRESS: No reassignment in progress for orders-1');
  });
});

describe('openAdmin without a cluster', () => {
  let server: Server | null = null;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = null;
  });

  it('gives up within its timeout on a server that accepts and never answers', async () => {
    server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const t0 = Date.now();
    const err = await openAdmin(parseConnectionConfig({ bootstrap: [`127.0.0.1:${port}`] }), { timeoutMs: 800 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KafkaAdminError);
    expect((err as Error).message).toMatch(/could not read cluster metadata from any bootstrap server/);
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});
