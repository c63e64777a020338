// Open transactions and last stable offsets for a diagnosis, the
// leader-override plan and the abort operation: the I/O edge (over
// KafkaAdmin) plus the pure verdict every consumer of it shares.
//
// The sequence (KIP-664, as `kafka-transactions.sh find-hanging` does it,
// without its age filter):
//   1. DescribeProducers at each leader: producers with an open transaction
//      and its first offset.
//   2. ListOffsets READ_COMMITTED and READ_UNCOMMITTED: LSO against high watermark.
//   3. ListTransactions on every broker, filtered by those producer ids: their
//      transactional ids and coordinators.
//   4. DescribeTransactions at each coordinator: is the transaction still
//      ongoing on this partition (so its marker will come)?
//   5. After a short window, a second LSO/HW sample where LSO < HW, and
//      DescribeProducers again where a transaction looked hanging: a marker
//      written between 1 and 4 (a commit in flight) must not read as a hang.
import { KafkaErrorCode } from './errors.ts';
import type { KafkaAdmin, TopicPartition } from './admin.ts';
import type { ClusterSnapshot, CoordinatorLookup, CoordinatorView, OpenTransaction, PartitionTransactions, TransactionsView } from './types.ts';
import type { PartitionProducers } from './api/describe-producers/call.ts';
import type { TransactionDescription } from './api/describe-transactions/call.ts';

/** The per-item code the transaction APIs (lib/kafka/api/) give for a broker without the API (DescribeProducers before 2.8; ListTransactions / DescribeTransactions before 3.0). */
const { UNSUPPORTED_VERSION } = KafkaErrorCode;
import { errorMessage } from '../runtime/errors.ts';

export const DEFAULT_TRANSACTION_MAX_TIMEOUT_MS = 900_000;
/** Second LSO sample this long after the first, when some partition's LSO is behind its high watermark. */
export const DEFAULT_LSO_WINDOW_MS = 2_000;

/** Brokers before 2.8 have none of KIP-664's APIs. */
export const NOT_AVAILABLE_REASON = 'not available on this broker version: DescribeProducers (KIP-664) needs Kafka 2.8 or later, ListTransactions / DescribeTransactions 3.0';
/**
 * Kafka 2.8 answers DescribeProducers but has no ListTransactions /
 * DescribeTransactions: the coordinator's view cannot be read, so an open
 * transaction is "unknown" unless it is older than transaction.max.timeout.ms.
 */
export const COORDINATOR_VIEW_NOT_AVAILABLE_REASON =
  "not available on this broker version: the coordinator's view (ListTransactions / DescribeTransactions, KIP-664) needs Kafka 3.0 or later; an open transaction counts as hanging only once it is older than transaction.max.timeout.ms";

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export type TransactionVerdict =
  | { verdict: 'hanging'; why: 'coordinator-not-found' | 'coordinator-moved-on' | 'other-producer' | 'older-than-max-timeout' }
  | { verdict: 'live' }
  | { verdict: 'unknown'; why: string };

/**
 * Hanging: the coordinator no longer has this transaction ongoing on this
 * partition (completed, aborted, another producer id, or no coordinator knows
 * the producer), whatever its age; or it has been open longer than the
 * brokers' transaction.max.timeout.ms (no coordinator would let it live that
 * long). Unknown when the coordinator could not be asked: never a reason to abort.
 */
export function transactionVerdict(t: OpenTransaction, maxTransactionTimeoutMs: number | null, now: number): TransactionVerdict {
  const max = maxTransactionTimeoutMs ?? DEFAULT_TRANSACTION_MAX_TIMEOUT_MS;
  if (t.lastTimestamp > 0 && now - t.lastTimestamp > max) return { verdict: 'hanging', why: 'older-than-max-timeout' };
  const c = t.coordinatorView;
  if (c.lookup === 'unknown') return { verdict: 'unknown', why: c.reason ?? 'the coordinator could not be asked' };
  if (c.lookup === 'not-found') return { verdict: 'hanging', why: 'coordinator-not-found' };
  if (c.producerId !== null && c.producerId !== t.producerId) return { verdict: 'hanging', why: 'other-producer' };
  if (!c.includesPartition) return { verdict: 'hanging', why: 'coordinator-moved-on' };
  return { verdict: 'live' };
}

/**
 * Groups whose committed offset sits at the partition's LSO while the high
 * watermark is beyond: read_committed consumers stopped by it. One below
 * counts too: a client that commits "last record + 1" (kafkajs) stops on the
 * COMMIT marker just before the LSO, which Java's consumer steps over.
 */
export function groupsAtLso(snapshot: ClusterSnapshot, p: PartitionTransactions): string[] {
  const last = p.samples.at(-1);
  if (!last || last.lastStableOffset === null || last.highWatermark === null || last.highWatermark <= last.lastStableOffset) return [];
  const lso = last.lastStableOffset;
  const sample = snapshot.consumerSamples?.at(-1);
  if (!sample) return [];
  return sample.groups
    .filter((g) => g.offsets.some((o) => o.topic === p.topic && o.partition === p.partition && (o.offset === lso || o.offset === lso - 1)))
    .map((g) => g.groupId)
    .sort();
}

export interface ReadTransactionsOptions {
  partitions: readonly TopicPartition[];
  /** A broker to read transaction.max.timeout.ms from. */
  configBroker?: number | null;
  sampleWindowMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Reads what the detectors and planners need; never throws (status 'failed' with the reason instead). */
export async function readTransactions(admin: KafkaAdmin, options: ReadTransactionsOptions): Promise<TransactionsView> {
  const now = options.now ?? Date.now;
  const at = now();
  const errors: string[] = [];
  const empty = (status: TransactionsView['status'], reason: string): TransactionsView => ({ status, reason, at, maxTransactionTimeoutMs: null, partitions: [], errors });
  if (options.partitions.length === 0) return { ...empty('ok', ''), reason: null };
  try {
    const [producers, maxTimeout] = await Promise.all([admin.describeProducers([...options.partitions]), readMaxTimeout(admin, options.configBroker ?? null, errors)]);
    const answered = producers.filter((p) => p.errorCode === 0);
    if (answered.length === 0 && producers.some((p) => p.errorCode === UNSUPPORTED_VERSION)) return empty('unavailable', NOT_AVAILABLE_REASON);
    for (const p of producers) if (p.errorCode !== 0 && p.errorCode !== UNSUPPORTED_VERSION) errors.push(`DescribeProducers ${p.topic}-${p.partition}: ${p.error}`);
    const unsupported = producers.filter((p) => p.errorCode === UNSUPPORTED_VERSION);
    if (unsupported.length > 0) errors.push(`${unsupported.length} partitions: ${NOT_AVAILABLE_REASON} (their leaders are older brokers)`);

    // After DescribeProducers, not beside it: brokers without it (before 2.8) are spared
    // two ListOffsets of every partition, 6 s of a 200,000-partition fleet's diagnosis.
    const offsets = await sampleOffsets(admin, options.partitions, now, errors);

    const interesting = new Map<string, PartitionTransactions>();
    for (const p of answered) {
      const sample = offsets.get(tpKey(p.topic, p.partition));
      const open = p.producers.filter((s) => s.currentTxnStartOffset >= 0);
      const behind = sample && sample.lastStableOffset !== null && sample.highWatermark !== null && sample.lastStableOffset < sample.highWatermark;
      if (open.length === 0 && !behind) continue;
      interesting.set(tpKey(p.topic, p.partition), {
        topic: p.topic,
        partition: p.partition,
        leader: p.leader,
        samples: sample ? [sample] : [],
        openTransactions: open.map((s) => ({
          producerId: s.producerId,
          producerEpoch: s.producerEpoch,
          coordinatorEpoch: s.coordinatorEpoch,
          firstOffset: s.currentTxnStartOffset,
          lastTimestamp: s.lastTimestamp,
          coordinatorView: { lookup: 'unknown', transactionalId: null, coordinator: null, state: null, producerId: null, producerEpoch: null, startTimeMs: null, timeoutMs: null, includesPartition: false, reason: 'not asked yet' },
        })),
      });
    }
    const coordinators = await attachCoordinatorViews(admin, [...interesting.values()], errors);

    const window = options.sampleWindowMs ?? DEFAULT_LSO_WINDOW_MS;
    const behind = [...interesting.values()].filter((p) => {
      const s = p.samples[0];
      return s && s.lastStableOffset !== null && s.highWatermark !== null && s.lastStableOffset < s.highWatermark;
    });
    const suspects = [...interesting.values()].filter((p) => p.openTransactions.some((t) => transactionVerdict(t, maxTimeout, now()).verdict === 'hanging'));
    if (window > 0 && (behind.length > 0 || suspects.length > 0)) {
      await (options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(window);
      const later = await sampleOffsets(admin, behind, now, errors);
      for (const p of behind) {
        const s = later.get(tpKey(p.topic, p.partition));
        if (s) p.samples.push(s);
      }
    }
    if (suspects.length > 0) await dropClosedSince(admin, suspects, errors);
    const partitions = [...interesting.values()]
      .filter((p) => p.openTransactions.length > 0 || p.samples.some((s) => s.lastStableOffset !== null && s.highWatermark !== null && s.lastStableOffset < s.highWatermark))
      .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
    return { status: 'ok', reason: null, at, maxTransactionTimeoutMs: maxTimeout, partitions, errors, ...(coordinators ? { coordinators } : {}) };
  } catch (err) {
    return empty('failed', errorMessage(err));
  }
}

async function readMaxTimeout(admin: KafkaAdmin, broker: number | null, errors: string[]): Promise<number | null> {
  if (broker === null) return null;
  try {
    const [d] = await admin.describeConfigs([{ type: 'broker', name: String(broker), names: ['transaction.max.timeout.ms'] }]);
    const v = d?.entries.find((e) => e.name === 'transaction.max.timeout.ms')?.value;
    if (d?.error) errors.push(`transaction.max.timeout.ms on broker ${broker}: ${d.error}`);
    return v && /^\d+$/.test(v) ? Number(v) : null;
  } catch (err) {
    errors.push(`transaction.max.timeout.ms on broker ${broker}: ${errorMessage(err)}`);
    return null;
  }
}

async function sampleOffsets(admin: KafkaAdmin, partitions: readonly TopicPartition[], now: () => number, errors: string[]) {
  const tps = partitions.map((p) => ({ topic: p.topic, partition: p.partition }));
  const out = new Map<string, PartitionTransactions['samples'][number]>();
  if (tps.length === 0) return out;
  const [hw, lso] = await Promise.all([admin.listOffsets(tps, 'latest'), admin.listOffsets(tps, 'last-stable')]);
  const at = now();
  const lsoBy = new Map(lso.map((o) => [tpKey(o.topic, o.partition), o]));
  for (const h of hw) {
    const l = lsoBy.get(tpKey(h.topic, h.partition));
    if (h.error) errors.push(`ListOffsets ${h.topic}-${h.partition}: ${h.error}`);
    out.set(tpKey(h.topic, h.partition), { at, highWatermark: h.offset, lastStableOffset: l?.offset ?? null });
  }
  return out;
}

function unknownView(reason: string): CoordinatorView {
  return { lookup: 'unknown', transactionalId: null, coordinator: null, state: null, producerId: null, producerEpoch: null, startTimeMs: null, timeoutMs: null, includesPartition: false, reason };
}

function notFound(transactionalId: string | null, coordinator: number | null): CoordinatorView {
  return { lookup: 'not-found', transactionalId, coordinator, state: null, producerId: null, producerEpoch: null, startTimeMs: null, timeoutMs: null, includesPartition: false };
}

/** Attaches each open transaction's coordinator view; returns how the coordinators were looked up (undefined: no open transaction). */
async function attachCoordinatorViews(admin: KafkaAdmin, partitions: PartitionTransactions[], errors: string[]): Promise<CoordinatorLookup | undefined> {
  const producerIds = [...new Set(partitions.flatMap((p) => p.openTransactions.map((t) => t.producerId)))];
  if (producerIds.length === 0) return undefined;
  const [listed, state] = await Promise.all([admin.listTransactions({ producerIds }), coordinatorPartitions(admin)]);
  for (const f of listed.failures) errors.push(`ListTransactions on broker ${f.brokerId}: ${f.error}`);
  const lookup: CoordinatorLookup = { partitions: state.partitions, leaderless: state.leaderless, silentBrokers: [...new Set(listed.failures.map((f) => f.brokerId))].sort((a, b) => a - b) };
  const leaderless = state.leaderless.map((p) => p.partition);
  // A coordinator whose __transaction_state partition has no leader lists nothing: "not listed" proves nothing then.
  if (leaderless.length > 0) {
    listed.failures.push({ brokerId: -1, errorCode: COORDINATOR_NOT_AVAILABLE, error: `COORDINATOR_NOT_AVAILABLE: ${TRANSACTION_STATE_TOPIC} partitions ${leaderless.join(', ')} have no leader` });
  }
  const byProducer = new Map(listed.transactions.map((t) => [t.producerId, t]));
  const unavailable = listed.failures.length > 0 && listed.failures.every((f) => f.errorCode === UNSUPPORTED_VERSION);
  const descriptions = new Map<string, TransactionDescription>();
  for (const d of await admin.describeTransactions([...new Set(listed.transactions.map((t) => t.transactionalId))])) descriptions.set(d.transactionalId, d);
  for (const p of partitions) {
    for (const t of p.openTransactions) {
      const listing = byProducer.get(t.producerId);
      if (!listing) {
        // Not listed: hanging only if every broker answered (a silent coordinator may hold it).
        const silent = listed.failures.map((f) => (f.brokerId < 0 ? f.error : `broker ${f.brokerId} did not list its transactions (${f.error})`)).join('; ');
        t.coordinatorView = listed.failures.length === 0 ? notFound(null, null) : unknownView(unavailable ? COORDINATOR_VIEW_NOT_AVAILABLE_REASON : silent);
        continue;
      }
      const d = descriptions.get(listing.transactionalId);
      if (!d || (d.errorCode !== 0 && d.errorCode !== TRANSACTIONAL_ID_NOT_FOUND)) {
        t.coordinatorView = { ...unknownView(d?.error ?? 'not described'), transactionalId: listing.transactionalId, coordinator: listing.coordinator };
        continue;
      }
      if (d.errorCode === TRANSACTIONAL_ID_NOT_FOUND) {
        t.coordinatorView = notFound(listing.transactionalId, d.coordinator);
        continue;
      }
      t.coordinatorView = {
        lookup: 'found',
        transactionalId: d.transactionalId,
        coordinator: d.coordinator,
        state: d.state,
        producerId: d.producerId,
        producerEpoch: d.producerEpoch,
        startTimeMs: d.startTimeMs,
        timeoutMs: d.timeoutMs,
        includesPartition: d.partitions.some((x) => x.topic === p.topic && x.partition === p.partition),
      };
    }
  }
  return lookup;
}

const TRANSACTIONAL_ID_NOT_FOUND = 105;
const COORDINATOR_NOT_AVAILABLE = 15;
export const TRANSACTION_STATE_TOPIC = '__transaction_state';

/** __transaction_state's partition count and the partitions without a live leader (their coordinators cannot answer). */
async function coordinatorPartitions(admin: KafkaAdmin): Promise<Pick<CoordinatorLookup, 'partitions' | 'leaderless'>> {
  const md = await admin.metadata([TRANSACTION_STATE_TOPIC]);
  const t = md.topicMetadata.find((x) => x.topic === TRANSACTION_STATE_TOPIC);
  const live = new Set(md.brokers.map((b) => b.nodeId));
  const all = t?.partitionMetadata ?? [];
  const leaderless = all
    .filter((p) => p.leader < 0 || !live.has(p.leader))
    .map((p) => ({ partition: p.partitionId, replicas: p.replicas }))
    .sort((a, b) => a.partition - b.partition);
  return { partitions: all.length > 0 ? all.length : null, leaderless };
}

/** A transaction closed since step 1 (its marker landed) is not hanging: keep only those still open at the same offset. */
async function dropClosedSince(admin: KafkaAdmin, suspects: PartitionTransactions[], errors: string[]): Promise<void> {
  let again: PartitionProducers[];
  try {
    again = await admin.describeProducers(suspects.map((p) => ({ topic: p.topic, partition: p.partition })));
  } catch (err) {
    errors.push(`DescribeProducers (re-check): ${errorMessage(err)}`);
    return;
  }
  const by = new Map(again.map((p) => [tpKey(p.topic, p.partition), p]));
  for (const p of suspects) {
    const now = by.get(tpKey(p.topic, p.partition));
    if (!now || now.errorCode !== 0) continue;
    p.openTransactions = p.openTransactions.filter((t) => now.producers.some((s) => s.producerId === t.producerId && s.currentTxnStartOffset === t.firstOffset));
  }
}
