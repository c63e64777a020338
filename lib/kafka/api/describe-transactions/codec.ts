// DescribeTransactions (API key 65, KIP-664), from Kafka's
// DescribeTransactionsRequest.json / Response.json: validVersions 0, flexible 0+.
// Brokers serve it from 3.0. It goes to each transactional id's coordinator
// (FindCoordinator with key type 1, TRANSACTION); another broker answers
// NOT_COORDINATOR, an unknown id TRANSACTIONAL_ID_NOT_FOUND.
// Topics lists the partitions of the current transaction while it is Ongoing,
// and while PrepareCommit / PrepareAbort only those still without a marker.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';

export const DESCRIBE_TRANSACTIONS_API_KEY = 65;

export interface TransactionStateEntry {
  errorCode: number;
  transactionalId: string;
  /** Coordinator's state name: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence. */
  transactionState: string;
  transactionTimeoutMs: number;
  /** Epoch ms; -1 when no transaction is running. */
  transactionStartTimeMs: number;
  producerId: number;
  producerEpoch: number;
  topics: { topic: string; partitions: number[] }[];
}

export interface DescribeTransactionsResult {
  throttleTimeMs: number;
  transactionStates: TransactionStateEntry[];
}

export const DescribeTransactions: ApiDefinition<{ transactionalIds: readonly string[] }, DescribeTransactionsResult> = {
  apiKey: DESCRIBE_TRANSACTIONS_API_KEY,
  apiName: 'DescribeTransactions',
  versions: [0],
  firstFlexibleVersion: 0,
  encode(version, args) {
    assertVersion(DescribeTransactions, version);
    const w = writerFor(DescribeTransactions, version);
    w.array(args.transactionalIds, (w, id) => w.string(id));
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(DescribeTransactions, version);
    const r = readerFor(DescribeTransactions, version, body);
    const throttleTimeMs = r.int32();
    const transactionStates =
      r.array((r) => {
        const s: TransactionStateEntry = {
          errorCode: r.int16(),
          transactionalId: r.requiredString('DescribeTransactions transactional id'),
          transactionState: r.requiredString('DescribeTransactions state'),
          transactionTimeoutMs: r.int32(),
          transactionStartTimeMs: r.int64(),
          producerId: r.int64(),
          producerEpoch: r.int16(),
          topics:
            r.array((r) => {
              const t = { topic: r.requiredString('DescribeTransactions topic'), partitions: r.int32Array() ?? [] };
              r.tags();
              return t;
            }) ?? [],
        };
        r.tags();
        return s;
      }) ?? [];
    r.tags();
    return { throttleTimeMs, transactionStates };
  },
};
