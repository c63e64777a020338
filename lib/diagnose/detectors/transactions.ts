// Transactions that hold a partition's last stable offset (KIP-664), a pure
// function of the snapshot's `transactions` view (lib/kafka/transactions.ts
// reads it) and its consumer samples:
//   hanging-transaction: an open transaction the coordinator no longer has
//     ongoing on this partition (or older than transaction.max.timeout.ms).
//     Right after an unclean election we do not wait for Kafka's age filter:
//     the coordinator's view is enough.
//   lso-stalled: the LSO did not move across samples while the high watermark
//     did, and nothing hangs there (a slow or stuck but live transaction).
import type { ClusterSnapshot, OpenTransaction, PartitionTransactions } from '../../kafka/types.ts';
import { groupsAtLso, transactionVerdict } from '../../kafka/transactions.ts';
import type { Evidence, Finding } from '../types.ts';
import { makeFinding, plural } from '../finding.ts';
import type { Detector } from '../detector.ts';

export const TRANSACTION_FINDING_KINDS = ['hanging-transaction', 'lso-stalled'] as const;

export function formatDuration(ms: number): string {
  if (ms < 0) return 'unknown';
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const m = Math.round(s / 60);
  return m < 120 ? `${m} min` : `${Math.round(m / 60)} h`;
}

/** read_committed groups stopped at the LSO (lib/kafka/transactions.ts, shared with the abort plan). */
export const groupsStalledAt = groupsAtLso;

function coordinatorText(t: OpenTransaction, topic: string, partition: number): string {
  const c = t.coordinatorView;
  if (c.lookup === 'not-found') return c.transactionalId ? `transactional id ${c.transactionalId}: its coordinator does not know it` : `no coordinator lists producer id ${t.producerId}`;
  if (c.lookup === 'unknown') return `not known: ${c.reason ?? 'the coordinator could not be asked'}`;
  const where = c.includesPartition ? `still ongoing on ${topic}-${partition}` : `not ongoing on ${topic}-${partition}`;
  return `transactional id ${c.transactionalId} at coordinator broker ${c.coordinator}: ${c.state}, producer ${c.producerId} epoch ${c.producerEpoch}, ${where}`;
}

function offsetsText(p: PartitionTransactions): string {
  const last = p.samples.at(-1);
  if (!last) return 'unknown';
  return `LSO ${last.lastStableOffset ?? 'unknown'}, high watermark ${last.highWatermark ?? 'unknown'}`;
}

function transactionEvidence(t: OpenTransaction, p: PartitionTransactions, now: number): Evidence[] {
  const src = p.leader === null ? 'metadata' : `broker:${p.leader}`;
  const started = t.coordinatorView.lookup === 'found' && t.coordinatorView.startTimeMs !== null && t.coordinatorView.startTimeMs > 0 && t.coordinatorView.includesPartition ? t.coordinatorView.startTimeMs : null;
  return [
    { label: 'open transaction', value: `${p.topic}-${p.partition}: producer ${t.producerId} epoch ${t.producerEpoch}, first offset ${t.firstOffset}, coordinator epoch ${t.coordinatorEpoch}`, source: src },
    {
      label: 'age',
      value: started !== null ? `${formatDuration(now - started)} (started ${new Date(started).toISOString()})` : `${formatDuration(now - t.lastTimestamp)} since the producer's last write here (${new Date(t.lastTimestamp).toISOString()})`,
      source: src,
    },
    { label: 'coordinator', value: coordinatorText(t, p.topic, p.partition), source: t.coordinatorView.coordinator === null ? 'cluster' : `broker:${t.coordinatorView.coordinator}` },
  ];
}

export function detectTransactionFindings(snapshot: ClusterSnapshot): Finding[] {
  const view = snapshot.transactions;
  if (!view || view.status !== 'ok') return [];
  const findings: Finding[] = [];
  for (const p of view.partitions) {
    const hanging = p.openTransactions.filter((t) => transactionVerdict(t, view.maxTransactionTimeoutMs, view.at).verdict === 'hanging');
    const stalled = groupsStalledAt(snapshot, p);
    const tpRef = { topic: p.topic, partition: p.partition };
    if (hanging.length > 0) {
      const first = Math.min(...hanging.map((t) => t.firstOffset));
      const evidence = hanging.flatMap((t) => transactionEvidence(t, p, view.at));
      evidence.push({ label: 'offsets', value: offsetsText(p), source: p.leader === null ? 'metadata' : `broker:${p.leader}` });
      if (stalled.length > 0) evidence.push({ label: 'read_committed groups stalled at the LSO', value: stalled.join(', '), source: 'consumer offsets' });
      findings.push(
        makeFinding({
          kind: 'hanging-transaction',
          severity: stalled.length > 0 ? 'critical' : 'error',
          title: `Hanging transaction on ${p.topic}-${p.partition} from offset ${first}`,
          summary:
            `${plural(hanging.length, 'open transaction')} on ${p.topic}-${p.partition} that no coordinator will close: ` +
            `read_committed consumers cannot read past offset ${first}` +
            (stalled.length > 0 ? `; ${plural(stalled.length, 'group')} already stopped there.` : '.'),
          partitions: [tpRef],
          brokers: p.leader === null ? [] : [p.leader],
          groups: stalled,
          evidence,
          nextActions: hanging.map(
            (t) => `Abort it (the ABORT marker kafka-transactions.sh abort writes), with two approvals: /kafka abort-transaction ${p.topic} ${p.partition} ${t.firstOffset}`,
          ),
          identity: [`partition:${p.topic}-${p.partition}`, ...hanging.map((t) => `producer:${t.producerId}:${t.firstOffset}`)],
        }),
      );
      continue;
    }
    const firstSample = p.samples[0];
    const lastSample = p.samples.at(-1);
    if (p.samples.length < 2 || !firstSample || !lastSample) continue;
    const lso = lastSample.lastStableOffset;
    if (lso === null || firstSample.lastStableOffset !== lso || lastSample.highWatermark === null || firstSample.highWatermark === null) continue;
    if (!(lastSample.highWatermark > firstSample.highWatermark && lastSample.highWatermark > lso)) continue;
    const holder = p.openTransactions.filter((t) => t.firstOffset === lso);
    const evidence: Evidence[] = [
      {
        label: 'samples',
        value: `LSO ${lso} at both samples ${formatDuration(lastSample.at - firstSample.at)} apart; high watermark ${firstSample.highWatermark} → ${lastSample.highWatermark}`,
        source: p.leader === null ? 'metadata' : `broker:${p.leader}`,
      },
      ...holder.flatMap((t) => transactionEvidence(t, p, view.at)),
    ];
    if (stalled.length > 0) evidence.push({ label: 'read_committed groups stalled at the LSO', value: stalled.join(', '), source: 'consumer offsets' });
    const who = holder[0];
    const whoText = who ? ` by producer ${who.producerId}${who.coordinatorView.transactionalId ? ` (transactional id ${who.coordinatorView.transactionalId})` : ''}` : '';
    findings.push(
      makeFinding({
        kind: 'lso-stalled',
        severity: 'warning',
        title: `Last stable offset stalled on ${p.topic}-${p.partition} at ${lso}`,
        summary: `The LSO of ${p.topic}-${p.partition} stayed at ${lso} while the log grew: a transaction still open${whoText} holds read_committed consumers there.`,
        partitions: [tpRef],
        brokers: p.leader === null ? [] : [p.leader],
        groups: stalled,
        evidence,
        nextActions: [
          'The coordinator still has this transaction ongoing: find its producer (transactional id above) and why it does not commit; the coordinator aborts it at its timeout. Do not abort it by hand.',
        ],
        identity: [`partition:${p.topic}-${p.partition}`],
      }),
    );
  }
  return findings;
}

/** The transaction detectors (one unit: both kinds come from one pass over the transactions view). */
export const TRANSACTION_DETECTORS: readonly Detector[] = [
  { kinds: TRANSACTION_FINDING_KINDS, needs: ['metadata'], detect: ({ snapshot }) => detectTransactionFindings(snapshot) },
];
