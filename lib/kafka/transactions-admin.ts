// The transaction APIs of KIP-664 as the admin client routes them (Java's
// Admin does the same): DescribeProducers to each partition's leader,
// ListTransactions to every broker, DescribeTransactions to each
// transactional id's coordinator (FindCoordinator key type 1), and the abort
// `kafka-transactions.sh abort` sends: one WriteTxnMarkers ABORT marker to the
// partition's leader. lib/kafka/admin.ts exposes these as methods; the
// plumbing it lends (leaders, connections, "any broker") is `TxnRouting`.
// A broker without the API (DescribeProducers before 2.8, the others before 3.0) gives UNSUPPORTED_VERSION per item,
// never a throw: callers say "not available on this broker version".
import type { TopicPartition } from './admin.ts';
import { mapLimit } from './limits.ts';
import { errorMessage } from '../runtime/errors.ts';
import { DescribeProducers, type ProducerStateEntry } from './api/describe-producers/codec.ts';
import { DescribeTransactions } from './api/describe-transactions/codec.ts';
import { ListTransactions } from './api/list-transactions/codec.ts';
import { WriteTxnMarkers } from './api/write-txn-markers/codec.ts';
import { KAFKAJS, UnsupportedVersionError, type WireBroker } from './wire.ts';
import { KafkaErrorCode, kafkaError } from './errors.ts';

export type { ProducerStateEntry };

export const { UNSUPPORTED_VERSION } = KafkaErrorCode;
const NETWORK_EXCEPTION = 13;
const REQUEST_TIMED_OUT = 7;
const NOT_LEADER_OR_FOLLOWER = 6;
const LEADER_NOT_AVAILABLE = 5;
const UNKNOWN_TOPIC_OR_PARTITION = 3;
const NOT_COORDINATOR = 16;
const COORDINATOR_NOT_AVAILABLE = 15;
const COORDINATOR_LOAD_IN_PROGRESS = 14;
/** FindCoordinator key type for transactional ids. */
const TRANSACTION_COORDINATOR = 1;

export interface PartitionProducers extends TopicPartition {
  errorCode: number;
  error: string | null;
  /** The leader asked, null when there was none. */
  leader: number | null;
  producers: ProducerStateEntry[];
}

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

export interface AbortSpec extends TopicPartition {
  producerId: number;
  producerEpoch: number;
  /** The partition's coordinator epoch for this producer (DescribeProducers); -1 is sent as 0, as Kafka's tool does. */
  coordinatorEpoch: number;
}

/** What lib/kafka/admin.ts lends these calls. */
export interface TxnRouting {
  /** Each partition's leader from fresh Metadata (-1: none; undefined: not in the metadata). */
  leaders(topics: string[]): Promise<Map<string, number>>;
  brokerConn(id: number): WireBroker | null;
  brokerIds(): Promise<number[]>;
  /** Any broker that answers (for FindCoordinator). */
  anyBroker<T>(what: string, send: (c: WireBroker) => Promise<T>): Promise<T>;
  connTo(host: string, port: number, nodeId: number): WireBroker;
  concurrency: number;
}

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

function describe(code: number, message?: string | null): string | null {
  if (code === 0) return null;
  const e = kafkaError(code);
  return `${e.type}: ${message || e.message}`;
}

function transport(err: unknown, where: string): { errorCode: number; error: string } {
  const errorCode =
    err instanceof UnsupportedVersionError ? UNSUPPORTED_VERSION : err instanceof Error && /timed? ?out/i.test(err.message) ? REQUEST_TIMED_OUT : NETWORK_EXCEPTION;
  return { errorCode, error: `${kafkaError(errorCode).type}: ${where}: ${errorMessage(err)}` };
}

/** `brokerId` asks that broker (any replica answers for its own log, leader or not) instead of each leader. */
export async function describeProducersVia(r: TxnRouting, partitions: readonly TopicPartition[], brokerId?: number): Promise<PartitionProducers[]> {
  const out = new Map<string, PartitionProducers>();
  const set = (tp: TopicPartition, leader: number | null, errorCode: number, error: string | null, producers: ProducerStateEntry[] = []) =>
    out.set(tpKey(tp.topic, tp.partition), { topic: tp.topic, partition: tp.partition, leader, errorCode, error, producers });
  const retriable = new Set([NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, NETWORK_EXCEPTION, REQUEST_TIMED_OUT]);
  let pending = [...partitions];
  // A leader that moved between Metadata and the request: one more round with fresh Metadata.
  for (let round = 0; round < 2 && pending.length > 0; round++) {
    const leaders = await r.leaders([...new Set(pending.map((p) => p.topic))]);
    const byLeader = new Map<number, TopicPartition[]>();
    for (const tp of pending) {
      const leader = brokerId ?? leaders.get(tpKey(tp.topic, tp.partition));
      if (leader === undefined) set(tp, null, UNKNOWN_TOPIC_OR_PARTITION, describe(UNKNOWN_TOPIC_OR_PARTITION));
      else if (leader < 0 || !r.brokerConn(leader)) set(tp, null, LEADER_NOT_AVAILABLE, describe(LEADER_NOT_AVAILABLE));
      else {
        const list = byLeader.get(leader);
        if (list) list.push(tp);
        else byLeader.set(leader, [tp]);
      }
    }
    await mapLimit([...byLeader], r.concurrency, async ([leader, tps]) => {
      try {
        const res = await r.brokerConn(leader)!.request(DescribeProducers, { partitions: tps });
        for (const t of res.topics) for (const p of t.partitions) set({ topic: t.name, partition: p.partitionIndex }, leader, p.errorCode, describe(p.errorCode, p.errorMessage), p.activeProducers);
        for (const tp of tps) if (!out.has(tpKey(tp.topic, tp.partition))) set(tp, leader, -1, 'UNKNOWN_SERVER_ERROR: the response has no result for this partition');
      } catch (err) {
        const t = transport(err, `leader ${leader}`);
        for (const tp of tps) set(tp, leader, t.errorCode, t.error);
      }
    });
    pending = round === 0 && brokerId === undefined ? pending.filter((tp) => retriable.has(out.get(tpKey(tp.topic, tp.partition))?.errorCode ?? 0)) : [];
  }
  return partitions.map((tp) => out.get(tpKey(tp.topic, tp.partition))!);
}

export async function listTransactionsVia(r: TxnRouting, filter: { producerIds?: readonly number[]; states?: readonly string[] }): Promise<TransactionList> {
  const ids = await r.brokerIds();
  const transactions: TransactionListing[] = [];
  const failures: TransactionList['failures'] = [];
  await mapLimit(ids, r.concurrency, async (brokerId) => {
    const c = r.brokerConn(brokerId);
    if (!c) return void failures.push({ brokerId, errorCode: NETWORK_EXCEPTION, error: `broker ${brokerId} is not in the metadata` });
    try {
      const res = await c.request(ListTransactions, { stateFilters: filter.states ?? [], producerIdFilters: filter.producerIds ?? [] });
      if (res.errorCode !== 0) return void failures.push({ brokerId, errorCode: res.errorCode, error: describe(res.errorCode)! });
      for (const t of res.transactionStates) transactions.push({ transactionalId: t.transactionalId, producerId: t.producerId, state: t.transactionState, coordinator: brokerId });
    } catch (err) {
      const t = transport(err, `broker ${brokerId}`);
      failures.push({ brokerId, ...t });
    }
  });
  transactions.sort((a, b) => a.transactionalId.localeCompare(b.transactionalId));
  return { transactions, failures: failures.sort((a, b) => a.brokerId - b.brokerId) };
}

async function findTransactionCoordinator(r: TxnRouting, transactionalId: string): Promise<{ nodeId: number; conn: WireBroker } | { errorCode: number; error: string }> {
  try {
    const res = await r.anyBroker(`FindCoordinator ${transactionalId}`, (c) =>
      c.request(KAFKAJS.FindCoordinator, { groupId: transactionalId, coordinatorType: TRANSACTION_COORDINATOR }),
    );
    if (res.errorCode !== 0) return { errorCode: res.errorCode, error: describe(res.errorCode, res.errorMessage)! };
    const { nodeId, host, port } = res.coordinator;
    return { nodeId, conn: r.connTo(host, port, nodeId) };
  } catch (err) {
    return transport(err, 'FindCoordinator');
  }
}

export async function describeTransactionsVia(r: TxnRouting, transactionalIds: readonly string[]): Promise<TransactionDescription[]> {
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
  const moved = new Set([NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS]);
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
            error: describe(s.errorCode),
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
        const t = transport(err, `coordinator ${nodeId}`);
        for (const id of batch) out.set(id, failed(id, nodeId, t.errorCode, t.error));
      }
    });
  }
  return ids.map((id) => out.get(id) ?? failed(id, null, -1, 'UNKNOWN_SERVER_ERROR: the coordinator did not describe this transactional id'));
}

/** The abort of `kafka-transactions.sh abort`: one ABORT marker for one partition, at its leader. */
export async function abortTransactionVia(r: TxnRouting, spec: AbortSpec): Promise<{ errorCode: number; error: string | null; leader: number | null }> {
  const leaders = await r.leaders([spec.topic]);
  const leader = leaders.get(tpKey(spec.topic, spec.partition));
  if (leader === undefined) return { errorCode: UNKNOWN_TOPIC_OR_PARTITION, error: describe(UNKNOWN_TOPIC_OR_PARTITION), leader: null };
  const conn = leader >= 0 ? r.brokerConn(leader) : null;
  if (!conn) return { errorCode: LEADER_NOT_AVAILABLE, error: describe(LEADER_NOT_AVAILABLE), leader: null };
  try {
    const res = await conn.request(WriteTxnMarkers, {
      markers: [
        {
          producerId: spec.producerId,
          producerEpoch: spec.producerEpoch,
          commit: false,
          coordinatorEpoch: Math.max(0, spec.coordinatorEpoch),
          partitions: [{ topic: spec.topic, partition: spec.partition }],
        },
      ],
    });
    const marker = res.markers.find((m) => m.producerId === spec.producerId);
    const p = marker?.topics.find((t) => t.name === spec.topic)?.partitions.find((x) => x.partitionIndex === spec.partition);
    if (!p) return { errorCode: -1, error: 'UNKNOWN_SERVER_ERROR: the WriteTxnMarkers response has no result for this partition', leader };
    return { errorCode: p.errorCode, error: describe(p.errorCode), leader };
  } catch (err) {
    return { ...transport(err, `leader ${leader}`), leader };
  }
}
