// transaction-unresolved: an open transaction that holds a partition's last
// stable offset while its coordinator cannot be asked (typically right after
// a rescue: the __transaction_state partition that coordinates it has no
// leader, so ListTransactions / DescribeTransactions cannot say whether it is
// still ongoing). The verdict is "unknown", never "hanging" from silence, yet
// every read_committed consumer already stops at its first offset: so it is
// reported on its own, with what holds the LSO, since when, which coordinator
// partitions have no leader and who holds their replicas, the groups waiting
// there, and that the verdict (hanging-transaction or lso-stalled) comes once
// that partition has a leader. Kafka 2.8 (no coordinator view at all) is not
// this case: the diagnosis says so among its skipped checks.
import type { ClusterSnapshot, CoordinatorLookup, OpenTransaction, PartitionTransactions, TransactionsView } from '../../kafka/types.ts';
import { COORDINATOR_VIEW_NOT_AVAILABLE_REASON, TRANSACTION_STATE_TOPIC, groupsAtLso, transactionVerdict } from '../../kafka/transactions.ts';
import { offsetsPartitionFor } from '../../kafka/group-partition.ts';
import type { Evidence } from '../types.ts';
import { brokerList, plural } from '../finding.ts';
import type { Detected, FindingProse } from './check.ts';
import { leaderSource, offsetsText, partitionParts, transactionEvidence } from './transaction-evidence.ts';

/**
 * The open transactions of `p` whose coordinator could not be asked (not the
 * line lacking the API) and that hold the LSO: the LSO sits at or before their
 * first offset (or is unknown). One whose first offset the LSO has passed
 * closed in the meantime.
 */
export function unresolvedTransactions(view: TransactionsView, p: PartitionTransactions): OpenTransaction[] {
  const lso = p.samples.at(-1)?.lastStableOffset ?? null;
  return p.openTransactions.filter((t) => {
    if (t.coordinatorView.reason === COORDINATOR_VIEW_NOT_AVAILABLE_REASON) return false;
    if (transactionVerdict(t, view.maxTransactionTimeoutMs, view.at).verdict !== 'unknown') return false;
    return lso === null || lso <= t.firstOffset;
  });
}

interface LeaderlessCoordinator {
  partition: number;
  replicas: number[];
  /** Replicas not in the live broker list. */
  down: number[];
}

/** The view's own lookup first (what the verdict was made from), else the snapshot's __transaction_state. */
function coordinatorState(snapshot: ClusterSnapshot, view: TransactionsView): { partitions: number | null; leaderless: LeaderlessCoordinator[]; silent: number[] } {
  const live = new Set(snapshot.brokers.map((b) => b.id));
  const withDown = (l: { partition: number; replicas: number[] }) => ({ ...l, down: l.replicas.filter((r) => !live.has(r)) });
  const lookup: CoordinatorLookup | undefined = view.coordinators;
  const topic = snapshot.topics.find((t) => t.name === TRANSACTION_STATE_TOPIC);
  if (lookup) return { partitions: lookup.partitions ?? topic?.partitions.length ?? null, leaderless: lookup.leaderless.map(withDown), silent: lookup.silentBrokers.filter((b) => b >= 0) };
  if (!topic) return { partitions: null, leaderless: [], silent: [] };
  const leaderless = topic.partitions.filter((p) => p.leader < 0 || !live.has(p.leader)).map((p) => withDown({ partition: p.partition, replicas: p.replicas }));
  return { partitions: topic.partitions.length, leaderless, silent: [] };
}

const tsp = (n: number) => `${TRANSACTION_STATE_TOPIC}-${n}`;

function leaderlessText(l: LeaderlessCoordinator): string {
  return `${tsp(l.partition)}: no leader, replicas ${l.replicas.join(',') || 'none'}${l.down.length > 0 ? ` (${l.down.join(',')} down)` : ''}`;
}

/**
 * What the renderer words: the partition, the transactions holding its LSO
 * (how many, the first's producer, epoch, offset and last write), the LSO and
 * high watermark, the groups waiting, the coordinator partition (by its
 * transactional id) or the leaderless ones it may be, the brokers to bring
 * back, and the coordinator's reason when nothing else is known.
 */
export interface UnresolvedFacts {
  kind: 'transaction-unresolved';
  topic: string;
  partition: number;
  held: number;
  producerId: number;
  producerEpoch: number;
  firstOffset: number;
  lastTimestamp: number;
  lso: number | null | undefined;
  highWatermark: number | null | undefined;
  groups: number;
  coordinatorPartition: number | null;
  transactionalId: string | null;
  mine: number[];
  bringBack: number[];
  reason: string | null;
}

export function detectUnresolved(snapshot: ClusterSnapshot, view: TransactionsView, p: PartitionTransactions, held: readonly OpenTransaction[]): Detected<UnresolvedFacts> {
  const state = coordinatorState(snapshot, view);
  const first = held.reduce((a, t) => (t.firstOffset < a.firstOffset ? t : a), held[0]!);
  const last = p.samples.at(-1);
  const groups = groupsAtLso(snapshot, p);
  const tp = `${p.topic}-${p.partition}`;

  // Which coordinator partition: by its transactional id when a broker listed it, else the leaderless ones when every other coordinator answered.
  const known = held.map((t) => t.coordinatorView.transactionalId).find((id): id is string => id !== null) ?? null;
  const coordinatorPartition = known !== null && state.partitions ? offsetsPartitionFor(known, state.partitions) : null;
  const mine = coordinatorPartition !== null ? state.leaderless.filter((l) => l.partition === coordinatorPartition) : state.silent.length === 0 ? state.leaderless : [];

  const evidence: Evidence[] = held.flatMap((t) => transactionEvidence(t, p, view.at));
  evidence.push({ label: 'offsets', value: `${offsetsText(p)}${last && last.lastStableOffset !== null && last.highWatermark !== null ? ` (${last.highWatermark - last.lastStableOffset} records behind)` : ''}`, source: leaderSource(p) });
  const shown = (mine.length > 0 ? mine : state.leaderless).slice(0, 10);
  if (shown.length > 0) {
    evidence.push({
      label: `${TRANSACTION_STATE_TOPIC} without a leader`,
      value: shown.map(leaderlessText).join('; ') + (state.leaderless.length > shown.length && mine.length === 0 ? ` … (+${state.leaderless.length - shown.length})` : ''),
      source: 'metadata',
    });
  }
  if (state.silent.length > 0) evidence.push({ label: 'coordinators not answering', value: brokerList(state.silent), source: 'ListTransactions' });
  if (groups.length > 0) evidence.push({ label: 'read_committed groups waiting at the LSO', value: groups.join(', '), source: 'consumer offsets' });

  return {
    finding: {
      kind: 'transaction-unresolved',
      severity: groups.length > 0 ? 'error' : 'warning',
      ...partitionParts(p),
      groups,
      evidence,
      identity: [`partition:${tp}`, ...held.map((t) => `producer:${t.producerId}:${t.firstOffset}`)],
    },
    facts: {
      kind: 'transaction-unresolved',
      topic: p.topic,
      partition: p.partition,
      held: held.length,
      producerId: first.producerId,
      producerEpoch: first.producerEpoch,
      firstOffset: first.firstOffset,
      lastTimestamp: first.lastTimestamp,
      lso: last?.lastStableOffset,
      highWatermark: last?.highWatermark,
      groups: groups.length,
      coordinatorPartition,
      transactionalId: known,
      mine: mine.map((l) => l.partition),
      bringBack: [...new Set(mine.flatMap((l) => l.down))].sort((a, b) => a - b),
      reason: first.coordinatorView.reason ?? null,
    },
  };
}

/** What the verdict waits for: the coordinator partition, or the leaderless ones it may be, or the coordinator's silence. */
function waitingFor({ coordinatorPartition, transactionalId, mine, producerId, reason }: UnresolvedFacts): string {
  if (coordinatorPartition !== null) return `its coordinator's partition ${tsp(coordinatorPartition)} (transactional id ${transactionalId})${mine.length > 0 ? ' has no leader' : ''}`;
  if (mine.length === 1) return `its coordinator's partition ${tsp(mine[0]!)} has no leader (every other coordinator answered and none lists producer ${producerId})`;
  if (mine.length > 1) return `its coordinator is one of the ${plural(mine.length, `${TRANSACTION_STATE_TOPIC} partition`)} without a leader (${mine.join(', ')})`;
  return `its coordinator did not answer (${reason ?? 'unknown reason'})`;
}

export function renderUnresolved(facts: UnresolvedFacts): FindingProse {
  const { topic, partition, held, producerId, producerEpoch, firstOffset, lastTimestamp, lso, highWatermark, groups, mine, bringBack } = facts;
  const tp = `${topic}-${partition}`;
  const since = lastTimestamp > 0 ? ` since at least ${new Date(lastTimestamp).toISOString()}` : '';
  const nextActions =
    mine.length > 0
      ? [
          `Give ${mine.length === 1 ? tsp(mine[0]!) : `those ${TRANSACTION_STATE_TOPIC} partitions`} a leader: bring back ${bringBack.length > 0 ? brokerList(bringBack) : 'a broker holding a replica'}. The coordinator then loads it, and the next diagnosis says hanging-transaction (abort it then) or lso-stalled (its producer still has it ongoing).`,
        ]
      : ['Re-run diagnose once the coordinators answer: the next diagnosis says hanging-transaction (abort it then) or lso-stalled (its producer still has it ongoing).'];
  nextActions.push('Do not abort it before that verdict: its coordinator may still complete it and write its COMMIT marker.');
  return {
    title: `Open transaction on ${tp} from offset ${firstOffset} holds the LSO; its coordinator cannot be asked yet`,
    summary:
      `${plural(held, 'open transaction')} (producer ${producerId} epoch ${producerEpoch}) ${held === 1 ? 'holds' : 'hold'} the last stable offset of ${tp} at ${lso ?? firstOffset}` +
      `${highWatermark != null ? ` (high watermark ${highWatermark})` : ''}${since}: read_committed consumers cannot read past offset ${firstOffset}` +
      `${groups > 0 ? `, and ${plural(groups, 'group')} already wait there` : ''}. Whether it is hanging or still live cannot be told yet: ${waitingFor(facts)}. ` +
      'The verdict comes once that coordinator answers.',
    nextActions,
  };
}
