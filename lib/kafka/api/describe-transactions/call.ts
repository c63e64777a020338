// DescribeTransactions (API key 65, KIP-664) at each transactional id's
// coordinator (FindCoordinator key type 1); per-id errors returned (before
// 3.0: UNSUPPORTED_VERSION).
import { mapLimit } from '../../limits.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import type { TopicPartition } from '../../partitions.ts';
import { lentTransportError } from '../../router/results.ts';
import { COORDINATOR_TYPE, type LentRouting } from '../../router/spec.ts';
import type { WireBroker } from '../../wire.ts';
import { FindCoordinatorWire } from '../find-coordinator/codec.ts';
import { DescribeTransactions } from './codec.ts';

const { NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS } = KafkaErrorCode;

export interface TransactionDescription {
  transactionalId: string;
  errorCode: number;
  error: string | null;
  coordinator: number | null;
  state: string;
  producerId: number;
  producerEpoch: number;
  timeoutMs: number;
  /** Epoch ms; -1 when no transaction runs. */
  startTimeMs: number;
  partitions: TopicPartition[];
}

async function findTransactionCoordinator(r: LentRouting, transactionalId: string): Promise<{ nodeId: number; conn: WireBroker } | { errorCode: number; error: string }> {
  try {
    const res = await r.anyBroker(`FindCoordinator ${transactionalId}`, (c) =>
      c.request(FindCoordinatorWire, { groupId: transactionalId, coordinatorType: COORDINATOR_TYPE.transaction }),
    );
    if (res.errorCode !== 0) return { errorCode: res.errorCode, error: describeError(res.errorCode, res.errorMessage)! };
    const { nodeId, host, port } = res.coordinator;
    return { nodeId, conn: r.connTo(host, port, nodeId) };
  } catch (err) {
    return lentTransportError(err, 'FindCoordinator');
  }
}

export async function describeTransactionsVia(r: LentRouting, transactionalIds: readonly string[]): Promise<TransactionDescription[]> {
  const ids = [...new Set(transactionalIds)];
  const out = new Map<string, TransactionDescription>();
  const failed = (transactionalId: string, coordinator: number | null, errorCode: number, error: string | null): TransactionDescription => ({
    transactionalId,
    errorCode,
    error,
    coordinator,
    state: 'Unknown',
    producerId: -1,
    producerEpoch: -1,
    timeoutMs: -1,
    startTimeMs: -1,
    partitions: [],
  });
  const moved = new Set<number>([NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS]);
  for (let round = 0; round < 2; round++) {
    const pending = ids.filter((id) => !out.has(id) || (round === 1 && moved.has(out.get(id)!.errorCode)));
    if (pending.length === 0) break;
    const byCoordinator = new Map<number, { conn: WireBroker; ids: string[] }>();
    await mapLimit(pending, r.concurrency, async (id) => {
      const coord = await findTransactionCoordinator(r, id);
      if ('errorCode' in coord) return void out.set(id, failed(id, null, coord.errorCode, coord.error));
      const entry = byCoordinator.get(coord.nodeId) ?? { conn: coord.conn, ids: [] };
      entry.ids.push(id);
      byCoordinator.set(coord.nodeId, entry);
    });
    await mapLimit([...byCoordinator], r.concurrency, async ([nodeId, { conn, ids: batch }]) => {
      try {
        const res = await conn.request(DescribeTransactions, { transactionalIds: batch });
        for (const s of res.transactionStates) {
          if (!batch.includes(s.transactionalId)) continue;
          out.set(s.transactionalId, {
            transactionalId: s.transactionalId,
            errorCode: s.errorCode,
            error: describeError(s.errorCode),
            coordinator: nodeId,
            state: s.errorCode === 0 ? s.transactionState : 'Unknown',
            producerId: s.producerId,
            producerEpoch: s.producerEpoch,
            timeoutMs: s.transactionTimeoutMs,
            startTimeMs: s.transactionStartTimeMs,
            partitions: s.topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))),
          });
        }
      } catch (err) {
        const t = lentTransportError(err, `coordinator ${nodeId}`);
        for (const id of batch) out.set(id, failed(id, nodeId, t.errorCode, t.error));
      }
    });
  }
  return ids.map((id) => out.get(id) ?? failed(id, null, -1, 'UNKNOWN_SERVER_ERROR: the coordinator did not describe this transactional id'));
}

