// readTransactions (lib/kafka/transactions.ts) against a scripted admin: the
// "not available on this broker version" paths (before 2.8 no KIP-664 API at
// all; 2.8 has DescribeProducers but not ListTransactions / DescribeTransactions), a
// coordinator that cannot answer (never read as hanging), and a marker that
// lands between DescribeProducers and the coordinator check.
import { describe, expect, it } from 'vitest';
import type { KafkaAdmin } from '../../lib/kafka/admin.ts';
import { COORDINATOR_VIEW_NOT_AVAILABLE_REASON, NOT_AVAILABLE_REASON, readTransactions, transactionVerdict } from '../../lib/kafka/transactions.ts';
import type { PartitionProducers } from '../../lib/kafka/api/describe-producers/call.ts';
import { planAbortTransaction, planWhenCoordinatorsAnswer } from '../../lib/operations/kinds/abort-transaction/index.ts';
import { snapshot } from '../operations/plan-fixtures.ts';

const tp = { topic: 'orders', partition: 0 };
const openTxn = { producerId: 7, producerEpoch: 0, lastSequence: 4, lastTimestamp: Date.now() - 5_000, coordinatorEpoch: 1, currentTxnStartOffset: 11 };

function scripted(over: Partial<KafkaAdmin> & { producers?: () => PartitionProducers[]; leaderless?: number[] }): KafkaAdmin {
  const producers = over.producers ?? (() => [{ ...tp, errorCode: 0, error: null, leader: 1, producers: [openTxn] }]);
  return {
    describeProducers: async () => producers(),
    listOffsets: async (ps: { topic: string; partition: number }[], which: string) => ps.map((p) => ({ ...p, errorCode: 0, error: null, offset: which === 'last-stable' ? 11 : 21 })),
    listTransactions: async () => ({ transactions: [], failures: [] }),
    describeTransactions: async () => [],
    describeConfigs: async () => [{ type: 'broker', name: '1', errorCode: 0, error: null, entries: [{ name: 'transaction.max.timeout.ms', value: '900000', isDefault: true, source: 5, isSensitive: false, readOnly: true }] }],
    metadata: async () => ({
      brokers: [{ nodeId: 1, host: 'h', port: 1 }],
      controllerId: 1,
      clusterId: 'c',
      topicMetadata: [{ topicErrorCode: 0, topic: '__transaction_state', isInternal: true, partitionMetadata: [0, 1].map((partitionId) => ({ partitionErrorCode: 0, partitionId, leader: over.leaderless?.includes(partitionId) ? -1 : 1, replicas: [1], isr: [1], offlineReplicas: [] })) }],
    }),
    ...over,
  } as unknown as KafkaAdmin;
}

describe('readTransactions', () => {
  it('brokers before 2.8: every partition answers UNSUPPORTED_VERSION → "not available on this broker version", no error, no finding input', async () => {
    const admin = scripted({ producers: () => [{ ...tp, errorCode: 35, error: 'UNSUPPORTED_VERSION: broker 127.0.0.1:9092 does not support DescribeProducers (API key 61)', leader: 1, producers: [] }] });
    const view = await readTransactions(admin, { partitions: [tp], configBroker: 1, sampleWindowMs: 0 });
    expect(view.status).toBe('unavailable');
    expect(view.reason).toBe(NOT_AVAILABLE_REASON);
    expect(view.reason).toMatch(/^not available on this broker version/);
    expect(view.partitions).toEqual([]);
  });

  it('Kafka 2.8 (DescribeProducers, no ListTransactions): the open transaction is read, its coordinator view "not available", unknown unless too old', async () => {
    const admin = scripted({ listTransactions: async () => ({ transactions: [], failures: [1, 2, 3].map((brokerId) => ({ brokerId, errorCode: 35, error: 'UNSUPPORTED_VERSION: no ListTransactions' })) }) });
    const view = await readTransactions(admin, { partitions: [tp], configBroker: 1, sampleWindowMs: 0 });
    expect(view.status).toBe('ok');
    const t = view.partitions[0]!.openTransactions[0]!;
    expect(t.coordinatorView).toMatchObject({ lookup: 'unknown', reason: COORDINATOR_VIEW_NOT_AVAILABLE_REASON });
    expect(COORDINATOR_VIEW_NOT_AVAILABLE_REASON).toMatch(/^not available on this broker version/);
    expect(transactionVerdict(t, view.maxTransactionTimeoutMs, view.at).verdict).toBe('unknown');
    expect(transactionVerdict({ ...t, lastTimestamp: view.at - 901_000 }, 900_000, view.at)).toEqual({ verdict: 'hanging', why: 'older-than-max-timeout' });
  });

  it('no coordinator lists the producer and every __transaction_state partition has a leader: not-found (hanging)', async () => {
    const view = await readTransactions(scripted({}), { partitions: [tp], configBroker: 1, sampleWindowMs: 0 });
    const t = view.partitions[0]!.openTransactions[0]!;
    expect(t.coordinatorView.lookup).toBe('not-found');
    expect(transactionVerdict(t, view.maxTransactionTimeoutMs, view.at)).toEqual({ verdict: 'hanging', why: 'coordinator-not-found' });
    expect(view.partitions[0]!.samples[0]).toMatchObject({ highWatermark: 21, lastStableOffset: 11 });
  });

  it('a leaderless __transaction_state partition (its coordinator is down): unknown, never hanging', async () => {
    const view = await readTransactions(scripted({ leaderless: [1] }), { partitions: [tp], configBroker: 1, sampleWindowMs: 0 });
    const t = view.partitions[0]!.openTransactions[0]!;
    expect(t.coordinatorView).toMatchObject({ lookup: 'unknown', reason: expect.stringMatching(/__transaction_state partitions 1 have no leader/) });
    expect(transactionVerdict(t, view.maxTransactionTimeoutMs, view.at).verdict).toBe('unknown');
  });

  it('a commit whose marker lands between the reads is not a hang: the re-check drops it', async () => {
    let calls = 0;
    const admin = scripted({ producers: () => [{ ...tp, errorCode: 0, error: null, leader: 1, producers: calls++ === 0 ? [openTxn] : [{ ...openTxn, currentTxnStartOffset: -1 }] }] });
    const view = await readTransactions(admin, { partitions: [tp], configBroker: 1, sampleWindowMs: 0 });
    expect(view.partitions[0]?.openTransactions ?? []).toEqual([]);
  });
});

describe('the abort planner asks again while a coordinator cannot answer', () => {
  const s = snapshot([1, 2, 3], { orders: [[1, [1, 2, 3], [1, 2, 3]]] });
  const request = { topic: 'orders', partition: 0, startOffset: 11 };
  const loading = { transactions: [], failures: [{ brokerId: 1, errorCode: 14, error: "COORDINATOR_LOAD_IN_PROGRESS: The coordinator is loading and hence can't process requests for this group" }] };

  it('a coordinator loading for two reads: the third read plans the abort (the run\'s proposal is not lost to it)', async () => {
    let reads = 0;
    const admin = scripted({ listTransactions: async () => (++reads <= 2 ? loading : { transactions: [], failures: [] }) });
    const waits: number[] = [];
    const result = await planWhenCoordinatorsAnswer(
      () => readTransactions(admin, { partitions: [tp], configBroker: 1, sampleWindowMs: 0 }),
      (view) => planAbortTransaction(s, view, request),
      { wait: async (ms) => void waits.push(ms) },
    );
    expect(result.ok).toBe(true);
    expect(reads).toBe(3);
    expect(waits).toEqual([1_000, 1_000]);
  });

  it('a coordinator that never answers: "cannot tell" once the time is up, never an abort', async () => {
    const admin = scripted({ listTransactions: async () => loading });
    const result = await planWhenCoordinatorsAnswer(
      () => readTransactions(admin, { partitions: [tp], configBroker: 1, sampleWindowMs: 0 }),
      (view) => planAbortTransaction(s, view, request),
      { forMs: 0, wait: async () => {} },
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && result.refusal.code).toBe('transaction-unknown');
  });
});
