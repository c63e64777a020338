// hanging-transaction and lso-stalled: pure functions of the snapshot's
// transactions view (as lib/kafka/transactions.ts reads it) and its consumer samples.
import { describe, expect, it } from 'vitest';
import { detectTransactionFindings } from '../../lib/diagnose/checks/transactions.ts';
import { detect } from '../../lib/diagnose/detect.ts';
import { transactionVerdict } from '../../lib/kafka/transactions.ts';
import type { CoordinatorView, OpenTransaction, PartitionTransactions, TransactionsView } from '../../lib/kafka/types.ts';
import { healthyTopic, snapshot } from './fixtures.ts';

const NOW = 1_800_000_000_000;

const found = (over: Partial<CoordinatorView> = {}): CoordinatorView => ({
  lookup: 'found',
  transactionalId: 'orders-app-1',
  coordinator: 2,
  state: 'CompleteCommit',
  producerId: 4001,
  producerEpoch: 0,
  startTimeMs: -1,
  timeoutMs: 60_000,
  includesPartition: false,
  ...over,
});

const open = (over: Partial<OpenTransaction> = {}): OpenTransaction => ({
  producerId: 4001,
  producerEpoch: 0,
  coordinatorEpoch: 3,
  firstOffset: 11,
  lastTimestamp: NOW - 20_000,
  coordinatorView: found(),
  ...over,
});

const partition = (over: Partial<PartitionTransactions> = {}): PartitionTransactions => ({
  topic: 'orders',
  partition: 0,
  leader: 3,
  samples: [
    { at: NOW - 2_000, highWatermark: 21, lastStableOffset: 11 },
    { at: NOW, highWatermark: 25, lastStableOffset: 11 },
  ],
  openTransactions: [open()],
  ...over,
});

const view = (partitions: PartitionTransactions[], over: Partial<TransactionsView> = {}): TransactionsView => ({
  status: 'ok',
  reason: null,
  at: NOW,
  maxTransactionTimeoutMs: 900_000,
  partitions,
  errors: [],
  ...over,
});

const withGroups = (v: TransactionsView) =>
  snapshot([healthyTopic('orders', 1)], {
    transactions: v,
    consumerSamples: [
      {
        at: NOW,
        groups: [
          { groupId: 'billing', offsets: [{ topic: 'orders', partition: 0, offset: 11 }], error: null },
          { groupId: 'audit', offsets: [{ topic: 'orders', partition: 0, offset: 25 }], error: null },
        ],
        logOffsets: [],
      },
    ],
  });

describe('transactionVerdict', () => {
  it('hanging when the coordinator finished the transaction, knows no such producer, moved to another producer id, or it is older than the max timeout', () => {
    expect(transactionVerdict(open(), 900_000, NOW)).toEqual({ verdict: 'hanging', why: 'coordinator-moved-on' });
    expect(transactionVerdict(open({ coordinatorView: found({ lookup: 'not-found', state: null }) }), 900_000, NOW)).toMatchObject({ why: 'coordinator-not-found' });
    expect(transactionVerdict(open({ coordinatorView: found({ producerId: 5000, state: 'Ongoing', includesPartition: true }) }), 900_000, NOW)).toMatchObject({ why: 'other-producer' });
    const live = found({ state: 'Ongoing', includesPartition: true });
    expect(transactionVerdict(open({ coordinatorView: live, lastTimestamp: NOW - 1_000_000 }), 900_000, NOW)).toMatchObject({ why: 'older-than-max-timeout' });
  });

  it('live while the coordinator has it ongoing on this partition; unknown (never hanging) when the coordinator could not be asked', () => {
    expect(transactionVerdict(open({ coordinatorView: found({ state: 'Ongoing', includesPartition: true }) }), 900_000, NOW)).toEqual({ verdict: 'live' });
    expect(transactionVerdict(open({ coordinatorView: found({ state: 'PrepareCommit', includesPartition: true }) }), 900_000, NOW)).toEqual({ verdict: 'live' });
    expect(transactionVerdict(open({ coordinatorView: { ...found(), lookup: 'unknown', reason: 'COORDINATOR_NOT_AVAILABLE' } }), 900_000, NOW)).toEqual({ verdict: 'unknown', why: 'COORDINATOR_NOT_AVAILABLE' });
  });
});

describe('hanging-transaction', () => {
  it('names the producer, first offset, age, coordinator view, LSO against the high watermark and the groups stopped at the LSO', () => {
    const [f, ...rest] = detectTransactionFindings(withGroups(view([partition()])));
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ kind: 'hanging-transaction', severity: 'critical', runbook: 'hanging-transaction', affected: { partitions: [{ topic: 'orders', partition: 0 }], brokers: [3], groups: ['billing'] } });
    const ev = Object.fromEntries(f!.evidence.map((e) => [e.label, e.value]));
    expect(ev['open transaction']).toBe('orders-0: producer 4001 epoch 0, first offset 11, coordinator epoch 3');
    expect(ev['age']).toMatch(/^20 s since the producer's last write here/);
    expect(ev['coordinator']).toBe('transactional id orders-app-1 at coordinator broker 2: CompleteCommit, producer 4001 epoch 0, not ongoing on orders-0');
    expect(ev['offsets']).toBe('LSO 11, high watermark 25');
    expect(ev['read_committed groups stalled at the LSO']).toBe('billing');
    expect(f!.nextActions[0]).toContain('/kafka abort-transaction orders 0 11');
  });

  it('is found at once after a rescue, far below Kafka find-hanging\'s 15-minute age filter; error (not critical) with no group stopped', () => {
    const f = detectTransactionFindings(snapshot([], { transactions: view([partition({ openTransactions: [open({ lastTimestamp: NOW - 1_000 })] })]) }));
    expect(f.map((x) => [x.kind, x.severity])).toEqual([['hanging-transaction', 'error']]);
  });

  it('keeps the same fingerprint across runs, and a different one for another transaction', () => {
    const a = detectTransactionFindings(withGroups(view([partition()])))[0]!;
    const b = detectTransactionFindings(withGroups(view([partition({ samples: [{ at: NOW, highWatermark: 30, lastStableOffset: 11 }] })])))[0]!;
    const c = detectTransactionFindings(withGroups(view([partition({ openTransactions: [open({ firstOffset: 40 })] })])))[0]!;
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(c.fingerprint).not.toBe(a.fingerprint);
  });
});

describe('lso-stalled', () => {
  const live = open({ coordinatorView: found({ state: 'Ongoing', includesPartition: true, startTimeMs: NOW - 95_000 }) });

  it('a slow but live transaction: lso-stalled naming the producer and how long, never hanging, and nothing offers an abort', () => {
    const findings = detect(withGroups(view([partition({ openTransactions: [live] })])));
    const kinds = findings.map((f) => f.kind);
    expect(kinds).toContain('lso-stalled');
    expect(kinds).not.toContain('hanging-transaction');
    const f = findings.find((x) => x.kind === 'lso-stalled')!;
    expect(f.summary).toContain('producer 4001 (transactional id orders-app-1)');
    expect(f.evidence.find((e) => e.label === 'age')?.value).toMatch(/^95 s \(started /);
    expect(f.evidence.find((e) => e.label === 'samples')?.value).toBe('LSO 11 at both samples 2 s apart; high watermark 21 → 25');
    expect(findings.flatMap((x) => x.nextActions).join('\n')).not.toMatch(/abort-transaction/);
  });

  it('not when the LSO moved, when the high watermark did not, or with a single sample', () => {
    const moved = partition({ openTransactions: [live], samples: [{ at: NOW - 2_000, highWatermark: 21, lastStableOffset: 11 }, { at: NOW, highWatermark: 25, lastStableOffset: 21 }] });
    const still = partition({ openTransactions: [live], samples: [{ at: NOW - 2_000, highWatermark: 21, lastStableOffset: 11 }, { at: NOW, highWatermark: 21, lastStableOffset: 11 }] });
    const one = partition({ openTransactions: [live], samples: [{ at: NOW, highWatermark: 21, lastStableOffset: 11 }] });
    expect(detectTransactionFindings(snapshot([], { transactions: view([moved, still, one]) }))).toEqual([]);
  });
});

describe('older brokers', () => {
  it('a view marked unavailable (before 3.0) or failed gives no finding: the diagnosis says it in skippedChecks instead', () => {
    expect(detectTransactionFindings(snapshot([], { transactions: view([partition()], { status: 'unavailable', reason: 'not available on this broker version' }) }))).toEqual([]);
    expect(detectTransactionFindings(snapshot([], { transactions: view([partition()], { status: 'failed', reason: 'timeout' }) }))).toEqual([]);
  });
});
