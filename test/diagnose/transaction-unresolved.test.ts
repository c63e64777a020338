// transaction-unresolved (checks/transaction-unresolved.ts): an open
// transaction holds a partition's LSO while its coordinator cannot be asked
// (its __transaction_state partition has no leader). Reported on its own, with
// the leaderless coordinator partition and who holds it, never as hanging or
// lso-stalled from silence; once the coordinator answers, the verdict is theirs.
import { describe, expect, it } from 'vitest';
import { detect } from '../../lib/diagnose/detect.ts';
import { detectTransactionFindings } from '../../lib/diagnose/checks/transactions.ts';
import type { Finding } from '../../lib/diagnose/types.ts';
import { offsetsPartitionFor } from '../../lib/kafka/group-partition.ts';
import { COORDINATOR_VIEW_NOT_AVAILABLE_REASON } from '../../lib/kafka/transactions.ts';
import type { ClusterSnapshot, CoordinatorLookup, CoordinatorView, OpenTransaction, PartitionTransactions, TransactionsView } from '../../lib/kafka/types.ts';
import { healthyTopic, part, snapshot, topic } from './fixtures.ts';

const NOW = 1_800_000_000_000;
const TXN_ID = 'orders-app-1';
const TSP = offsetsPartitionFor(TXN_ID, 50);

const unknown = (over: Partial<CoordinatorView> = {}): CoordinatorView => ({
  lookup: 'unknown',
  transactionalId: null,
  coordinator: null,
  state: null,
  producerId: null,
  producerEpoch: null,
  startTimeMs: null,
  timeoutMs: null,
  includesPartition: false,
  reason: `COORDINATOR_NOT_AVAILABLE: __transaction_state partitions ${TSP} have no leader`,
  ...over,
});

const open = (over: Partial<OpenTransaction> = {}): OpenTransaction => ({
  producerId: 4001,
  producerEpoch: 2,
  coordinatorEpoch: 3,
  firstOffset: 11,
  lastTimestamp: NOW - 30_000,
  coordinatorView: unknown(),
  ...over,
});

/** orders-0 led by broker 3 after the rescue; LSO held at 11 while the high watermark grows (what lso-stalled alone would call stalled). */
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

const lookup = (over: Partial<CoordinatorLookup> = {}): CoordinatorLookup => ({ partitions: 50, leaderless: [{ partition: TSP, replicas: [1] }], silentBrokers: [], ...over });

const view = (partitions: PartitionTransactions[], over: Partial<TransactionsView> = {}): TransactionsView => ({
  status: 'ok',
  reason: null,
  at: NOW,
  maxTransactionTimeoutMs: 900_000,
  partitions,
  errors: [],
  coordinators: lookup(),
  ...over,
});

/** Broker 1 lost: 2 and 3 live; a read_committed group waits at the LSO, another is past the HW of an earlier read. */
const cluster = (v: TransactionsView, over: Partial<ClusterSnapshot> = {}): ClusterSnapshot =>
  snapshot([healthyTopic('orders', 1)], {
    brokers: [2, 3].map((id) => ({ id, host: '127.0.0.1', port: 9090 + id, rack: null })),
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
    ...over,
  });

const txnKinds = (fs: Finding[]) => fs.filter((f) => ['transaction-unresolved', 'hanging-transaction', 'lso-stalled'].includes(f.kind)).map((f) => f.kind);
const ev = (f: Finding) => Object.fromEntries(f.evidence.map((e) => [e.label, e.value]));

describe('transaction-unresolved', () => {
  it('names the open transaction holding the LSO, the leaderless coordinator partition and who holds it, the waiting group; neither hanging nor lso-stalled', () => {
    const findings = detect(cluster(view([partition()])));
    expect(txnKinds(findings)).toEqual(['transaction-unresolved']);
    const f = findings.find((x) => x.kind === 'transaction-unresolved')!;
    expect(f).toMatchObject({ severity: 'error', runbook: 'transaction-unresolved', affected: { partitions: [{ topic: 'orders', partition: 0 }], brokers: [3], groups: ['billing'] } });
    expect(f.title).toBe('Open transaction on orders-0 from offset 11 holds the LSO; its coordinator cannot be asked yet');
    expect(f.summary).toContain('1 open transaction (producer 4001 epoch 2) holds the last stable offset of orders-0 at 11 (high watermark 25)');
    expect(f.summary).toContain('read_committed consumers cannot read past offset 11, and 1 group already wait there');
    expect(f.summary).toContain(`its coordinator's partition __transaction_state-${TSP} has no leader (every other coordinator answered and none lists producer 4001)`);
    expect(ev(f)).toMatchObject({
      'open transaction': 'orders-0: producer 4001 epoch 2, first offset 11, coordinator epoch 3',
      offsets: 'LSO 11, high watermark 25 (14 records behind)',
      '__transaction_state without a leader': `__transaction_state-${TSP}: no leader, replicas 1 (1 down)`,
      'read_committed groups waiting at the LSO': 'billing',
    });
    expect(ev(f)['coordinator']).toMatch(/^not known: COORDINATOR_NOT_AVAILABLE/);
    expect(f.nextActions[0]).toMatch(new RegExp(`^Give __transaction_state-${TSP} a leader: bring back broker 1\\. .*hanging-transaction .*lso-stalled`));
    expect(f.nextActions[1]).toMatch(/^Do not abort it before that verdict/);
    expect(findings.flatMap((x) => x.nextActions).join('\n')).not.toMatch(/abort-transaction/);
  });

  it('a transactional id some broker listed gives the coordinator partition by its hash, among several leaderless ones', () => {
    const others = [{ partition: (TSP + 1) % 50, replicas: [1, 2] }, { partition: (TSP + 2) % 50, replicas: [1, 2] }];
    const t = open({ coordinatorView: unknown({ transactionalId: TXN_ID, coordinator: 1, reason: 'COORDINATOR_NOT_AVAILABLE' }) });
    const v = view([partition({ openTransactions: [t] })], { coordinators: lookup({ leaderless: [{ partition: TSP, replicas: [1, 2] }, ...others] }) });
    const [f] = detectTransactionFindings(cluster(v));
    expect(f!.summary).toContain(`its coordinator's partition __transaction_state-${TSP} (transactional id ${TXN_ID}) has no leader`);
    expect(ev(f!)['__transaction_state without a leader']).toBe(`__transaction_state-${TSP}: no leader, replicas 1,2 (1 down)`);
    expect(f!.nextActions[0]).toMatch(/bring back broker 1\./);
  });

  it('no transactional id and several leaderless partitions: one of them, all named; a silent coordinator: it did not answer, re-run', () => {
    const several = view([partition()], { coordinators: lookup({ leaderless: [4, 7, 9].map((partition) => ({ partition, replicas: [1] })) }) });
    const [f] = detectTransactionFindings(cluster(several));
    expect(f!.summary).toContain('its coordinator is one of the 3 __transaction_state partitions without a leader (4, 7, 9)');
    expect(f!.nextActions[0]).toMatch(/^Give those __transaction_state partitions a leader: bring back broker 1\./);

    const silent = view([partition({ openTransactions: [open({ coordinatorView: unknown({ reason: 'broker 2 did not list its transactions (timeout)' }) })] })], { coordinators: lookup({ leaderless: [], silentBrokers: [2] }) });
    const [g] = detectTransactionFindings(cluster(silent));
    expect(g!.kind).toBe('transaction-unresolved');
    expect(g!.summary).toContain('its coordinator did not answer (broker 2 did not list its transactions (timeout))');
    expect(ev(g!)['coordinators not answering']).toBe('broker 2');
    expect(g!.nextActions[0]).toMatch(/^Re-run diagnose once the coordinators answer/);
  });

  it('a view without the lookup (an older snapshot) falls back on the snapshot\'s own __transaction_state; a warning when no group waits', () => {
    const tsTopic = topic('__transaction_state', [part(0, 2, [2, 3]), part(1, -1, [1, 3], [1])], null);
    const { coordinators: _none, ...older } = view([partition()]);
    const s = snapshot([healthyTopic('orders', 1), tsTopic], { brokers: [2, 3].map((id) => ({ id, host: '127.0.0.1', port: 9090 + id, rack: null })), transactions: older });
    const [f] = detectTransactionFindings(s);
    expect(f!.severity).toBe('warning');
    expect(f!.summary).toContain("its coordinator's partition __transaction_state-1 has no leader");
    expect(ev(f!)['__transaction_state without a leader']).toBe('__transaction_state-1: no leader, replicas 1,3 (1 down)');
  });

  it('once the coordinator answers, the verdict is known: hanging-transaction or lso-stalled, no transaction-unresolved', () => {
    const completed = open({ coordinatorView: { ...unknown(), lookup: 'found', transactionalId: TXN_ID, coordinator: 1, state: 'CompleteCommit', producerId: 4001, producerEpoch: 2, reason: undefined } });
    expect(txnKinds(detect(cluster(view([partition({ openTransactions: [completed] })], { coordinators: lookup({ leaderless: [] }) }))))).toEqual(['hanging-transaction']);
    const ongoing = open({ coordinatorView: { ...completed.coordinatorView, state: 'Ongoing', includesPartition: true, startTimeMs: NOW - 60_000 } });
    expect(txnKinds(detect(cluster(view([partition({ openTransactions: [ongoing] })], { coordinators: lookup({ leaderless: [] }) }))))).toEqual(['lso-stalled']);
    // Unknown but older than transaction.max.timeout.ms: no coordinator lets it live that long, so hanging.
    expect(txnKinds(detect(cluster(view([partition({ openTransactions: [open({ lastTimestamp: NOW - 1_000_000 })] })]))))).toEqual(['hanging-transaction']);
  });

  it('nothing once the LSO has passed the transaction\'s first offset (it closed in the meantime), nor on Kafka 2.8 where no coordinator view exists', () => {
    const passed = partition({ samples: [{ at: NOW, highWatermark: 25, lastStableOffset: 25 }] });
    expect(txnKinds(detect(cluster(view([passed]))))).toEqual([]);
    const beyond = partition({ samples: [{ at: NOW, highWatermark: 25, lastStableOffset: 12 }] });
    expect(txnKinds(detect(cluster(view([beyond]))))).toEqual([]);
    const old = partition({ openTransactions: [open({ coordinatorView: unknown({ reason: COORDINATOR_VIEW_NOT_AVAILABLE_REASON }) })] });
    expect(txnKinds(detect(cluster(view([old], { coordinators: lookup({ leaderless: [] }) }))))).not.toContain('transaction-unresolved');
  });

  it('the same open transaction keeps its fingerprint across runs while the high watermark moves', () => {
    const a = detectTransactionFindings(cluster(view([partition()])))[0]!;
    const b = detectTransactionFindings(cluster(view([partition({ samples: [{ at: NOW, highWatermark: 40, lastStableOffset: 11 }] })])))[0]!;
    const c = detectTransactionFindings(cluster(view([partition({ openTransactions: [open({ firstOffset: 30 })], samples: [{ at: NOW, highWatermark: 40, lastStableOffset: 30 }] })])))[0]!;
    expect(b.fingerprint).toBe(a.fingerprint);
    expect(c.fingerprint).not.toBe(a.fingerprint);
  });
});
