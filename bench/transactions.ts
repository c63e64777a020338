// Transaction detection at 1,000 partitions (issue 19). Figures only.
//
//   npx tsx bench/transactions.ts            pure detector on a synthetic view
//   KR_SANDBOX_HOME=… npx tsx bench/transactions.ts live
//                                            + the live read (readTransactions) on the
//                                              sandbox: a 1,000-partition topic, one open
//                                              transaction over 20 of its partitions
//
// "detect": detectTransactionFindings over 1,000 partitions, each with an open
// transaction (a worst case: every one a hanging candidate), median of 20 runs.
// "read": the KIP-664 sequence against real brokers: DescribeProducers per
// leader, ListOffsets ×2, ListTransactions per broker, FindCoordinator +
// DescribeTransactions, the re-check, with and without the second LSO sample.
import { detectTransactionFindings } from '../lib/diagnose/checks/transactions.ts';
import type { ClusterSnapshot, PartitionTransactions } from '../lib/kafka/types.ts';

const N = 1_000;
const now = Date.now();

function syntheticSnapshot(): ClusterSnapshot {
  const partitions: PartitionTransactions[] = [];
  for (let i = 0; i < N; i++) {
    partitions.push({
      topic: `t${Math.floor(i / 100)}`,
      partition: i % 100,
      leader: 1 + (i % 3),
      samples: [
        { at: now - 2_000, highWatermark: 1_000, lastStableOffset: 500 },
        { at: now, highWatermark: 1_100, lastStableOffset: 500 },
      ],
      openTransactions: [
        {
          producerId: 1000 + i,
          producerEpoch: 0,
          coordinatorEpoch: 1,
          firstOffset: 500,
          lastTimestamp: now - 30_000,
          coordinatorView: { lookup: 'found', transactionalId: `app-${i}`, coordinator: 1, state: i % 2 ? 'Ongoing' : 'CompleteCommit', producerId: 1000 + i, producerEpoch: 0, startTimeMs: now - 60_000, timeoutMs: 60_000, includesPartition: i % 2 === 1 },
        },
      ],
    });
  }
  return {
    takenAt: new Date(now).toISOString(),
    clusterId: 'bench',
    controllerId: 1,
    brokers: [1, 2, 3].map((id) => ({ id, host: 'b', port: 9092 })),
    topics: [],
    groups: [],
    offsetsTopicPartitions: 50,
    unreachableBrokers: [],
    errors: [],
    partial: false,
    transactions: { status: 'ok', reason: null, at: now, maxTransactionTimeoutMs: 900_000, partitions, errors: [] },
    consumerSamples: [{ at: now, groups: Array.from({ length: 200 }, (_, g) => ({ groupId: `g${g}`, offsets: [{ topic: `t${g % 10}`, partition: g % 100, offset: 500 }], error: null })), logOffsets: [] }],
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const s = syntheticSnapshot();
const cold = performance.now();
let findings = detectTransactionFindings(s);
const coldMs = performance.now() - cold;
const runs: number[] = [];
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  findings = detectTransactionFindings(s);
  runs.push(performance.now() - t);
}
console.log(`detect, ${N} partitions with an open transaction: first ${coldMs.toFixed(1)} ms, median ${median(runs).toFixed(2)} ms (${findings.filter((f) => f.kind === 'hanging-transaction').length} hanging, ${findings.filter((f) => f.kind === 'lso-stalled').length} lso-stalled)`);

if (process.argv[2] === 'live') {
  const { openAdmin } = await import('../lib/kafka/admin.ts');
  const { parseConnectionConfig } = await import('../lib/kafka/connection.ts');
  const { readTransactions } = await import('../lib/kafka/transactions.ts');
  const { bootstrapServers, sandboxSettings } = await import('../sandbox/layout.ts');
  const { kafkaClient, withAdmin } = await import('../sandbox/client.ts');
  const bootstrap = bootstrapServers(sandboxSettings());
  const topic = 'bench-txn-1000';
  await withAdmin(bootstrap, async (a) => {
    if (!(await a.listTopics()).includes(topic)) await a.createTopics({ topics: [{ topic, numPartitions: N, replicationFactor: 1 }], waitForLeaders: true, timeout: 120_000 });
  });
  const producer = kafkaClient(bootstrap, 'bench-txn').producer({ transactionalId: 'bench-txn-producer', idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const tx = await producer.transaction();
  await tx.send({ topic, messages: Array.from({ length: 20 }, (_, i) => ({ partition: i * 50, value: 'open' })) });
  const admin = await openAdmin(parseConnectionConfig({ bootstrap: bootstrap.split(',') }), { timeoutMs: 30_000 });
  try {
    const partitions = Array.from({ length: N }, (_, partition) => ({ topic, partition }));
    for (const window of [0, 2_000]) {
      const times: number[] = [];
      let open = 0;
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        const view = await readTransactions(admin, { partitions, configBroker: 1, sampleWindowMs: window });
        times.push(performance.now() - t);
        open = view.partitions.reduce((n, p) => n + p.openTransactions.length, 0);
      }
      console.log(`read (live sandbox), ${N} partitions, ${open} open transactions, second LSO sample ${window} ms: median ${median(times).toFixed(0)} ms of 3`);
    }
  } finally {
    await tx.abort().catch(() => undefined);
    await producer.disconnect();
    await admin.close();
    await withAdmin(bootstrap, (a) => a.deleteTopics({ topics: [topic] })).catch(() => undefined);
  }
}
