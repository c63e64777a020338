// ListTransactions (API key 66, KIP-664), from Kafka's
// ListTransactionsRequest.json / Response.json: v0 (3.0+) filters by state and
// producer id; v1 (KIP-994, 3.8+) adds DurationFilter; flexible 0+. Every
// broker answers for the transaction coordinators it hosts, so a full list
// asks every broker (as Java's Admin does).
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';

export const LIST_TRANSACTIONS_API_KEY = 66;

export interface ListTransactionsArgs {
  /** [] = every state. */
  stateFilters: readonly string[];
  /** [] = every producer. */
  producerIdFilters: readonly number[];
  /** v1+: only transactions running longer than this (ms); -1 = all. Ignored (not sent) in v0. */
  durationFilterMs?: number;
}

export interface ListTransactionsResult {
  throttleTimeMs: number;
  errorCode: number;
  unknownStateFilters: string[];
  transactionStates: { transactionalId: string; producerId: number; transactionState: string }[];
}

export const ListTransactions: ApiDefinition<ListTransactionsArgs, ListTransactionsResult> = {
  apiKey: LIST_TRANSACTIONS_API_KEY,
  apiName: 'ListTransactions',
  versions: [0, 1],
  firstFlexibleVersion: 0,
  encode(version, args) {
    assertVersion(ListTransactions, version);
    const w = writerFor(ListTransactions, version);
    w.array(args.stateFilters, (w, s) => w.string(s));
    w.array(args.producerIdFilters, (w, id) => w.int64(id));
    if (version >= 1) w.int64(args.durationFilterMs ?? -1);
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(ListTransactions, version);
    const r = readerFor(ListTransactions, version, body);
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const unknownStateFilters = (r.array((r) => r.requiredString('unknown state filter')) ?? []);
    const transactionStates =
      r.array((r) => {
        const s = { transactionalId: r.requiredString('ListTransactions transactional id'), producerId: r.int64(), transactionState: r.requiredString('ListTransactions state') };
        r.tags();
        return s;
      }) ?? [];
    r.tags();
    return { throttleTimeMs, errorCode, unknownStateFilters, transactionStates };
  },
};
