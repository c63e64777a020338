// ListTransactions (API key 66, KIP-664) on every broker: each lists the
// transactions it coordinates; a broker that fails is listed, not thrown
// (before 3.0: UNSUPPORTED_VERSION).
import { mapLimit } from '../../limits.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import { lentTransportError } from '../../router/results.ts';
import type { LentRouting } from '../../router/spec.ts';
import { ListTransactions } from './codec.ts';

const { NETWORK_EXCEPTION } = KafkaErrorCode;

export interface TransactionListing {
  transactionalId: string;
  producerId: number;
  state: string;
  /** The broker that listed it: the transaction's coordinator. */
  coordinator: number;
}

export interface TransactionList {
  transactions: TransactionListing[];
  /** Brokers that did not answer (their coordinators' transactions are missing from the list). */
  failures: { brokerId: number; errorCode: number; error: string }[];
}

export async function listTransactionsVia(r: LentRouting, filter: { producerIds?: readonly number[]; states?: readonly string[] }): Promise<TransactionList> {
  const ids = await r.brokerIds();
  const transactions: TransactionListing[] = [];
  const failures: TransactionList['failures'] = [];
  await mapLimit(ids, r.concurrency, async (brokerId) => {
    const c = r.brokerConn(brokerId);
    if (!c) return void failures.push({ brokerId, errorCode: NETWORK_EXCEPTION, error: `broker ${brokerId} is not in the metadata` });
    try {
      const res = await c.request(ListTransactions, { stateFilters: filter.states ?? [], producerIdFilters: filter.producerIds ?? [] });
      if (res.errorCode !== 0) return void failures.push({ brokerId, errorCode: res.errorCode, error: describeError(res.errorCode)! });
      for (const t of res.transactionStates) transactions.push({ transactionalId: t.transactionalId, producerId: t.producerId, state: t.transactionState, coordinator: brokerId });
    } catch (err) {
      const t = lentTransportError(err, `broker ${brokerId}`);
      failures.push({ brokerId, ...t });
    }
  });
  transactions.sort((a, b) => a.transactionalId.localeCompare(b.transactionalId));
  return { transactions, failures: failures.sort((a, b) => a.brokerId - b.brokerId) };
}

