// The check after a leader override's election (check-transactions) against a
// scripted admin: it waits while a coordinator cannot answer (its
// __transaction_state partition leaderless on the lost broker), proposes the
// abort once the coordinator's view says hanging, gives up waiting after its
// bound; and the proposals become plan jobs a worker accepts (follow-ups.ts).
import { describe, expect, it } from 'vitest';
import type { StepReport } from '../../../approvals/types.ts';
import type { KafkaAdmin } from '../../../kafka/admin.ts';
import { followUpJobs, followUpRequestId, proposalsOf } from '../../follow-ups.ts';
import { opsPlanJobSchema } from '../../requests.ts';
import type { StepContext } from '../../step-context.ts';
import { CHECK_TRANSACTIONS_WAIT_MS, checkTransactionsStep, type CheckTransactionsStep } from './run-steps.ts';
import type { ApprovalRequest } from '../../../approvals/types.ts';
import type { Plan } from '../../types.ts';

const tp = { topic: 'orders', partition: 0 };
const step: CheckTransactionsStep = { action: 'check-transactions', description: 'check', ...tp };

/** One open transaction from offset 11 (LSO 11, HW 21) that no coordinator lists; `leaderless` coordinators cannot answer. */
function admin(state: { leaderless: boolean; open?: boolean; listed?: boolean }): KafkaAdmin {
  const txn = { producerId: 7, producerEpoch: 0, lastSequence: 9, lastTimestamp: Date.now() - 5_000, coordinatorEpoch: 0, currentTxnStartOffset: 11 };
  return {
    describeProducers: async () => [{ ...tp, errorCode: 0, error: null, leader: 3, producers: state.open === false ? [] : [txn] }],
    listOffsets: async (ps: (typeof tp)[], which: string) => ps.map((p) => ({ ...p, errorCode: 0, error: null, offset: which === 'last-stable' ? 11 : 21 })),
    listTransactions: async () => ({ transactions: state.listed ? [{ transactionalId: 'app-1', producerId: 7, state: 'Ongoing', coordinator: 2 }] : [], failures: [] }),
    describeTransactions: async (ids: string[]) =>
      ids.map((transactionalId) => ({ transactionalId, errorCode: 0, error: null, coordinator: 2, state: 'Ongoing', producerId: 7, producerEpoch: 0, timeoutMs: 60_000, startTimeMs: Date.now(), partitions: [tp] })),
    metadata: async () => ({
      brokers: [{ nodeId: 2, host: 'h', port: 1 }, { nodeId: 3, host: 'h', port: 2 }],
      controllerId: 2,
      clusterId: 'c',
      topicMetadata: [{ topicErrorCode: 0, topic: '__transaction_state', isInternal: true, partitionMetadata: [0, 1].map((partitionId) => ({ partitionErrorCode: 0, partitionId, leader: state.leaderless ? -1 : 2, replicas: [1, 2, 3], isr: [2], offlineReplicas: [] })) }],
    }),
  } as unknown as KafkaAdmin;
}

function ctx(a: KafkaAdmin, startedAt: number, now: number): StepContext {
  return { admin: a, now: () => now, run: { stepStartedAt: startedAt } } as unknown as StepContext;
}

describe('check-transactions after the election', () => {
  it('waits while the coordinator cannot answer, never "hanging" from silence', async () => {
    const out = await checkTransactionsStep(step, ctx(admin({ leaderless: true }), 1_000, 2_000));
    expect(out.status).toBe('waiting');
    if (out.status === 'waiting') expect(out.progress).toMatch(/producer 7 from offset 11: cannot tell yet .*have no leader.*waiting for its coordinator/);
  });

  it('once the coordinators answer and none has the transaction: hanging, and its abort is proposed', async () => {
    const out = await checkTransactionsStep(step, ctx(admin({ leaderless: false }), 1_000, 2_000));
    expect(out).toMatchObject({ status: 'done', data: { proposals: [{ kind: 'abort-transaction', topic: 'orders', partition: 0, startOffset: 11 }] } });
    if (out.status === 'done') expect(out.detail).toMatch(/LSO 11, high watermark 21; HANGING: producer 7 from offset 11 \(coordinator-not-found\)/);
  });

  it('a live transaction (its coordinator has it ongoing here) proposes nothing', async () => {
    const out = await checkTransactionsStep(step, ctx(admin({ leaderless: false, listed: true }), 1_000, 2_000));
    expect(out).toMatchObject({ status: 'done', data: { proposals: [] } });
    if (out.status === 'done') expect(out.detail).toMatch(/live/);
  });

  it('past its bound it stops waiting, says it cannot tell, proposes nothing', async () => {
    const out = await checkTransactionsStep(step, ctx(admin({ leaderless: true }), 1_000, 1_001 + CHECK_TRANSACTIONS_WAIT_MS));
    expect(out).toMatchObject({ status: 'done', data: { proposals: [] } });
    if (out.status === 'done') expect(out.detail).toMatch(/cannot tell yet/);
  });

  it('no open transaction: done, nothing proposed', async () => {
    expect(await checkTransactionsStep(step, ctx(admin({ leaderless: true, open: false }), 1_000, 2_000))).toMatchObject({ status: 'done', detail: 'no open transaction on orders-0' });
  });
});

describe('follow-up plans a run proposes', () => {
  const parent = { id: 'req-1', requester: 'U0REQ', context: { cluster: 'sandbox' } } as unknown as ApprovalRequest<Plan>;
  const report = (proposals: unknown): StepReport => ({ index: 3, name: 'check-transactions', status: 'ok', data: { proposals } });
  const thread = { channel: 'C0OPS', threadTs: '1700000000.000100' };

  it('each proposal is a plan job the worker accepts, in the run\'s thread, asked by the run\'s requester, with a stable request id', () => {
    const proposal = { kind: 'abort-transaction', topic: 'orders', partition: 0, startOffset: 11 };
    const jobs = followUpJobs(parent, report([proposal]), thread, 'kr-1');
    expect(jobs).toHaveLength(1);
    const payload = opsPlanJobSchema.parse(jobs[0]!.payload);
    expect(payload).toMatchObject({ cluster: 'sandbox', request: proposal, origin: { channelId: 'C0OPS', threadTs: thread.threadTs, userId: 'U0REQ' }, proposedBy: 'req-1' });
    expect(payload.requestId).toBe(followUpRequestId('req-1', payload.request));
    // The same step reported again proposes the same request id: the plan job plans it once.
    expect(opsPlanJobSchema.parse(followUpJobs(parent, report([proposal]), thread, 'kr-2')[0]!.payload).requestId).toBe(payload.requestId);
    expect(followUpRequestId('req-2', payload.request)).not.toBe(payload.requestId);
  });

  it('what is not a valid request proposes nothing (stored data is checked like any input)', () => {
    expect(proposalsOf(report([{ kind: 'abort-transaction', topic: 'bad;topic', partition: 0, startOffset: 11 }]))).toEqual([]);
    expect(proposalsOf(report('nope'))).toEqual([]);
    expect(proposalsOf({ index: 0, name: 'elect', status: 'ok' })).toEqual([]);
    expect(followUpJobs({ ...parent, context: {} } as ApprovalRequest<Plan>, report([{ kind: 'abort-transaction', topic: 'orders', partition: 0, startOffset: 11 }]), thread, 'kr')).toEqual([]);
  });
});
