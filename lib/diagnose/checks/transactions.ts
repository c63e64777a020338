// Transactions that hold a partition's last stable offset (KIP-664), a pure
// function of the snapshot's `transactions` view (lib/kafka/transactions.ts
// reads it) and its consumer samples:
//   hanging-transaction: an open transaction the coordinator no longer has
//     ongoing on this partition (or older than transaction.max.timeout.ms).
//     Right after an unclean election we do not wait for Kafka's age filter:
//     the coordinator's view is enough.
//   lso-stalled: the LSO did not move across samples while the high watermark
//     did, and nothing hangs there (a slow or stuck but live transaction).
//   transaction-unresolved: an open transaction holds the LSO and its
//     coordinator cannot be asked yet (transaction-unresolved.ts); it becomes
//     one of the two above once the coordinator answers.
import type { ClusterSnapshot, OpenTransaction, PartitionTransactions, TransactionsView } from '../../kafka/types.ts';
import { groupsAtLso, transactionVerdict } from '../../kafka/transactions.ts';
import type { Evidence, Finding, OperationOffer } from '../types.ts';
import { plural } from '../finding.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { formatDuration, leaderSource, offsetsText, partitionParts, transactionEvidence } from './transaction-evidence.ts';
import { detectUnresolved, renderUnresolved, unresolvedTransactions, type UnresolvedFacts } from './transaction-unresolved.ts';

export { formatDuration } from './transaction-evidence.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'hanging-transaction': true;
    'lso-stalled': true;
    /** An open transaction holding the LSO whose coordinator cannot be asked yet (its __transaction_state partition has no leader). */
    'transaction-unresolved': true;
  }
}

export const TRANSACTION_FINDING_KINDS = ['hanging-transaction', 'lso-stalled', 'transaction-unresolved'] as const;

/** read_committed groups stopped at the LSO (lib/kafka/transactions.ts, shared with the abort plan). */
export const groupsStalledAt = groupsAtLso;

/**
 * The button of a hanging transaction: abort the first one (the request its
 * first next action names). The start offset is a fact only detect knows, so
 * the finding carries the request and the check's offer() hands it on.
 */
function abortOffer(topic: string, partition: number, startOffset: number): OperationOffer {
  return { label: `Plan abort of the transaction at ${topic}-${partition} offset ${startOffset}`, request: { kind: 'abort-transaction', topic, partition, startOffset } };
}

/**
 * What the renderer words, by kind: for a hanging transaction the partition,
 * how many hang, their first offsets and the groups stopped at the LSO; for a
 * stalled LSO the partition, the LSO and the producer holding it (when known);
 * for an unresolved one, transaction-unresolved.ts's facts.
 */
type Facts =
  | { kind: 'hanging-transaction'; topic: string; partition: number; first: number; offsets: number[]; stalled: number }
  | { kind: 'lso-stalled'; topic: string; partition: number; lso: number; producerId: number | null; transactionalId: string | null }
  | UnresolvedFacts;

function hangingFinding(snapshot: ClusterSnapshot, view: TransactionsView, p: PartitionTransactions, hanging: OpenTransaction[]): Detected<Facts> {
  const stalled = groupsStalledAt(snapshot, p);
  const first = Math.min(...hanging.map((t) => t.firstOffset));
  const evidence = hanging.flatMap((t) => transactionEvidence(t, p, view.at));
  evidence.push({ label: 'offsets', value: offsetsText(p), source: leaderSource(p) });
  if (stalled.length > 0) evidence.push({ label: 'read_committed groups stalled at the LSO', value: stalled.join(', '), source: 'consumer offsets' });
  return {
    finding: {
      kind: 'hanging-transaction',
      severity: stalled.length > 0 ? 'critical' : 'error',
      ...partitionParts(p),
      groups: stalled,
      evidence,
      identity: [`partition:${p.topic}-${p.partition}`, ...hanging.map((t) => `producer:${t.producerId}:${t.firstOffset}`)],
      offer: abortOffer(p.topic, p.partition, hanging[0]!.firstOffset),
    },
    facts: { kind: 'hanging-transaction', topic: p.topic, partition: p.partition, first, offsets: hanging.map((t) => t.firstOffset), stalled: stalled.length },
  };
}

/** The LSO did not move across samples while the high watermark did; null when it moved or the samples do not tell. */
function lsoStalledFinding(snapshot: ClusterSnapshot, view: TransactionsView, p: PartitionTransactions): Detected<Facts> | null {
  const firstSample = p.samples[0];
  const lastSample = p.samples.at(-1);
  if (p.samples.length < 2 || !firstSample || !lastSample) return null;
  const lso = lastSample.lastStableOffset;
  if (lso === null || firstSample.lastStableOffset !== lso || lastSample.highWatermark === null || firstSample.highWatermark === null) return null;
  if (!(lastSample.highWatermark > firstSample.highWatermark && lastSample.highWatermark > lso)) return null;
  const stalled = groupsStalledAt(snapshot, p);
  const holder = p.openTransactions.filter((t) => t.firstOffset === lso);
  const evidence: Evidence[] = [
    {
      label: 'samples',
      value: `LSO ${lso} at both samples ${formatDuration(lastSample.at - firstSample.at)} apart; high watermark ${firstSample.highWatermark} → ${lastSample.highWatermark}`,
      source: leaderSource(p),
    },
    ...holder.flatMap((t) => transactionEvidence(t, p, view.at)),
  ];
  if (stalled.length > 0) evidence.push({ label: 'read_committed groups stalled at the LSO', value: stalled.join(', '), source: 'consumer offsets' });
  const who = holder[0];
  return {
    finding: {
      kind: 'lso-stalled',
      severity: 'warning',
      ...partitionParts(p),
      groups: stalled,
      evidence,
      identity: [`partition:${p.topic}-${p.partition}`],
    },
    facts: { kind: 'lso-stalled', topic: p.topic, partition: p.partition, lso, producerId: who?.producerId ?? null, transactionalId: who?.coordinatorView.transactionalId ?? null },
  };
}

function detect(snapshot: ClusterSnapshot): Detected<Facts>[] {
  const view = snapshot.transactions;
  if (!view || view.status !== 'ok') return [];
  const found: Detected<Facts>[] = [];
  for (const p of view.partitions) {
    const hanging = p.openTransactions.filter((t) => transactionVerdict(t, view.maxTransactionTimeoutMs, view.at).verdict === 'hanging');
    // Holding the LSO while its coordinator cannot be asked: always said, on its own.
    const unresolved = unresolvedTransactions(view, p);
    if (unresolved.length > 0) found.push(detectUnresolved(snapshot, view, p, unresolved));
    if (hanging.length > 0) found.push(hangingFinding(snapshot, view, p, hanging));
    // An LSO held while the coordinator cannot be asked is not lso-stalled yet: the verdict waits for the coordinator.
    else if (unresolved.length === 0) found.push(...[lsoStalledFinding(snapshot, view, p)].filter((d) => d !== null));
  }
  return found;
}

function render(facts: Facts): FindingProse {
  if (facts.kind === 'transaction-unresolved') return renderUnresolved(facts);
  const tp = `${facts.topic}-${facts.partition}`;
  if (facts.kind === 'lso-stalled') {
    const { lso, producerId, transactionalId } = facts;
    const whoText = producerId !== null ? ` by producer ${producerId}${transactionalId ? ` (transactional id ${transactionalId})` : ''}` : '';
    return {
      title: `Last stable offset stalled on ${tp} at ${lso}`,
      summary: `The LSO of ${tp} stayed at ${lso} while the log grew: a transaction still open${whoText} holds read_committed consumers there.`,
      nextActions: [
        'The coordinator still has this transaction ongoing: find its producer (transactional id above) and why it does not commit; the coordinator aborts it at its timeout. Do not abort it by hand.',
      ],
    };
  }
  const { first, offsets, stalled } = facts;
  return {
    title: `Hanging transaction on ${tp} from offset ${first}`,
    summary:
      `${plural(offsets.length, 'open transaction')} on ${tp} that no coordinator will close: ` +
      `read_committed consumers cannot read past offset ${first}` +
      (stalled > 0 ? `; ${plural(stalled, 'group')} already stopped there.` : '.'),
    nextActions: offsets.map((o) => `Abort it (the ABORT marker kafka-transactions.sh abort writes), with two approvals: /kafka abort-transaction ${facts.topic} ${facts.partition} ${o}`),
  };
}

export function detectTransactionFindings(snapshot: ClusterSnapshot): Finding[] {
  return detect(snapshot).map((d) => renderFinding(d, render));
}

/** The transaction checks (one unit: the three kinds come from one pass over the transactions view). */
export const transactionCheck: Check = { kinds: TRANSACTION_FINDING_KINDS, needs: ['metadata'], detect: ({ snapshot }) => detectTransactionFindings(snapshot), offer: (f) => f.offer };
