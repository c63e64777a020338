// The KIP-664 transaction APIs and the abort marker, byte for byte against
// Kafka 4.4.0's own generated classes (DescribeProducers*Data,
// DescribeTransactions*Data, ListTransactions*Data, WriteTxnMarkers*Data
// serialized with MessageUtil.toByteBufferAccessor(message, version)).
import { describe, expect, it } from 'vitest';
import { DescribeProducers } from '../../lib/kafka/api/describe-producers/codec.ts';
import { DescribeTransactions } from '../../lib/kafka/api/describe-transactions/codec.ts';
import { ListTransactions } from '../../lib/kafka/api/list-transactions/codec.ts';
import { WriteTxnMarkers } from '../../lib/kafka/api/write-txn-markers/codec.ts';
import { pickVersion } from '../../lib/kafka/wire.ts';

const hex = (b: Buffer) => b.toString('hex');
const bytes = (h: string) => Buffer.from(h, 'hex');

const JAVA = {
  // orders [0, 2]
  dpReq: '02076f72646572730300000000000000020000',
  // throttle 3; orders-0: producer 4001 epoch 2 seq 9 ts 1700000000123 coordEpoch -1 txn from 11, producer 4002 no txn; orders-2 NOT_LEADER "not leader"
  dpRes:
    '0000000302076f72646572730300000000000000030000000000000fa100000002000000090000018bcfe5687bffffffff000000000000000b000000000000000fa200000000ffffffffffffffffffffffff00000005ffffffffffffffff00000000000200060b6e6f74206c656164657201000000',
  dtReq: '030574782d610574782d6200',
  // tx-a Ongoing 60000 ms from 1700000000000, producer 4001 epoch 2, orders [0,1]; tx-b TRANSACTIONAL_ID_NOT_FOUND
  dtRes:
    '000000000300000574782d61084f6e676f696e670000ea600000018bcfe568000000000000000fa1000202076f7264657273030000000000000001000000690574782d620100000000ffffffffffffffffffffffffffffffffffff010000',
  ltReq0: '02084f6e676f696e67020000000000000fa100',
  ltReq1: '02084f6e676f696e67020000000000000fa1ffffffffffffffff00',
  ltRes: '0000000000000206426f677573020574782d610000000000000fa10f436f6d706c657465436f6d6d69740000',
  // ABORT for producer 4001 epoch 2, coordinator epoch 0, orders-0
  wmReq1: '020000000000000fa100020002076f7264657273020000000000000000000000',
  wmRes1: '020000000000000fa102076f72646572730200000000000000000000',
};

describe('KIP-664 APIs match Kafka 4.4.0 byte for byte', () => {
  it('DescribeProducers v0: partitions grouped by topic; open transactions with their first offset, errors per partition', () => {
    expect(hex(DescribeProducers.encode(0, { partitions: [{ topic: 'orders', partition: 0 }, { topic: 'orders', partition: 2 }] }))).toBe(JAVA.dpReq);
    const res = DescribeProducers.decode(0, bytes(JAVA.dpRes));
    expect(res.throttleTimeMs).toBe(3);
    expect(res.topics[0]!.partitions).toEqual([
      {
        partitionIndex: 0,
        errorCode: 0,
        errorMessage: null,
        activeProducers: [
          { producerId: 4001, producerEpoch: 2, lastSequence: 9, lastTimestamp: 1700000000123, coordinatorEpoch: -1, currentTxnStartOffset: 11 },
          { producerId: 4002, producerEpoch: 0, lastSequence: -1, lastTimestamp: -1, coordinatorEpoch: 5, currentTxnStartOffset: -1 },
        ],
      },
      { partitionIndex: 2, errorCode: 6, errorMessage: 'not leader', activeProducers: [] },
    ]);
  });

  it('DescribeTransactions v0: state, timeout, start, producer and the partitions still without a marker', () => {
    expect(hex(DescribeTransactions.encode(0, { transactionalIds: ['tx-a', 'tx-b'] }))).toBe(JAVA.dtReq);
    const res = DescribeTransactions.decode(0, bytes(JAVA.dtRes));
    expect(res.transactionStates).toEqual([
      { errorCode: 0, transactionalId: 'tx-a', transactionState: 'Ongoing', transactionTimeoutMs: 60000, transactionStartTimeMs: 1700000000000, producerId: 4001, producerEpoch: 2, topics: [{ topic: 'orders', partitions: [0, 1] }] },
      { errorCode: 105, transactionalId: 'tx-b', transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: -1, producerId: -1, producerEpoch: -1, topics: [] },
    ]);
  });

  it('ListTransactions v0 and v1 (DurationFilter); unknown state filters and listings decoded', () => {
    const args = { stateFilters: ['Ongoing'], producerIdFilters: [4001] };
    expect(hex(ListTransactions.encode(0, args))).toBe(JAVA.ltReq0);
    expect(hex(ListTransactions.encode(1, args))).toBe(JAVA.ltReq1);
    expect(ListTransactions.decode(1, bytes(JAVA.ltRes))).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      unknownStateFilters: ['Bogus'],
      transactionStates: [{ transactionalId: 'tx-a', producerId: 4001, transactionState: 'CompleteCommit' }],
    });
  });

  it('WriteTxnMarkers v1: the one ABORT marker kafka-transactions.sh abort sends, and its per-partition result', () => {
    const req = WriteTxnMarkers.encode(1, { markers: [{ producerId: 4001, producerEpoch: 2, commit: false, coordinatorEpoch: 0, partitions: [{ topic: 'orders', partition: 0 }] }] });
    expect(hex(req)).toBe(JAVA.wmReq1);
    expect(WriteTxnMarkers.decode(1, bytes(JAVA.wmRes1))).toEqual({ markers: [{ producerId: 4001, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, errorCode: 0 }] }] }] });
  });

  it('version negotiation: 2.8 lists none of 61/65/66 (no version: "not available"), 4.4 gives WriteTxnMarkers v1 of 1-2 and ListTransactions v1 of 0-2', () => {
    expect(pickVersion(DescribeProducers.versions, undefined)).toBeNull();
    expect(pickVersion(DescribeTransactions.versions, undefined)).toBeNull();
    expect(pickVersion(ListTransactions.versions, undefined)).toBeNull();
    expect(pickVersion(WriteTxnMarkers.versions, { minVersion: 1, maxVersion: 2 })).toBe(1);
    expect(pickVersion(ListTransactions.versions, { minVersion: 0, maxVersion: 2 })).toBe(1);
    expect(pickVersion(ListTransactions.versions, { minVersion: 0, maxVersion: 0 })).toBe(0);
  });

  it('refuses versions it does not implement, and a truncated response is a protocol error', () => {
    expect(() => WriteTxnMarkers.encode(0, { markers: [] })).toThrow(/not implemented/);
    expect(() => DescribeProducers.decode(0, bytes(JAVA.dpRes).subarray(0, 20))).toThrow(/truncated/);
  });
});
