// Evidence every transaction finding quotes alike (hanging-transaction,
// lso-stalled, transaction-unresolved): the open transaction, its age, what
// its coordinator says, the LSO against the high watermark.
import type { OpenTransaction, PartitionTransactions } from '../../kafka/types.ts';
import type { Evidence } from '../types.ts';

export function formatDuration(ms: number): string {
  if (ms < 0) return 'unknown';
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const m = Math.round(s / 60);
  return m < 120 ? `${m} min` : `${Math.round(m / 60)} h`;
}

export function coordinatorText(t: OpenTransaction, topic: string, partition: number): string {
  const c = t.coordinatorView;
  if (c.lookup === 'not-found') return c.transactionalId ? `transactional id ${c.transactionalId}: its coordinator does not know it` : `no coordinator lists producer id ${t.producerId}`;
  if (c.lookup === 'unknown') return `not known: ${c.reason ?? 'the coordinator could not be asked'}`;
  const where = c.includesPartition ? `still ongoing on ${topic}-${partition}` : `not ongoing on ${topic}-${partition}`;
  return `transactional id ${c.transactionalId} at coordinator broker ${c.coordinator}: ${c.state}, producer ${c.producerId} epoch ${c.producerEpoch}, ${where}`;
}

export function offsetsText(p: PartitionTransactions): string {
  const last = p.samples.at(-1);
  if (!last) return 'unknown';
  return `LSO ${last.lastStableOffset ?? 'unknown'}, high watermark ${last.highWatermark ?? 'unknown'}`;
}

export const leaderSource = (p: PartitionTransactions) => (p.leader === null ? 'metadata' : `broker:${p.leader}`);

/** What a transaction finding affects: the partition and its leader. */
export const partitionParts = (p: PartitionTransactions) => ({ partitions: [{ topic: p.topic, partition: p.partition }], brokers: p.leader === null ? [] : [p.leader] });

export function transactionEvidence(t: OpenTransaction, p: PartitionTransactions, now: number): Evidence[] {
  const src = leaderSource(p);
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
