// The transaction APIs' result types, where importers have always found them
// (each API is a folder of lib/kafka/api/; lib/kafka/admin.ts calls them).
export type { PartitionProducers, ProducerStateEntry } from './api/describe-producers/call.ts';
export type { TransactionListing, TransactionList } from './api/list-transactions/call.ts';
export type { TransactionDescription } from './api/describe-transactions/call.ts';
export type { AbortSpec } from './api/write-txn-markers/call.ts';
