// Every check in the table keeps detect and prose apart (check.ts): detect
// returns coded facts, the check's render owns title, summary and next
// actions. Held two ways: no module but check.ts builds a Finding (so every
// finding is worded by a render), and, over cases that raise every kind of
// the table, the facts each finding was rendered from quote none of its prose.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS, FINDING_KINDS } from '../../lib/diagnose/checks/index.ts';
import { renderedFacts, runChecks, type CheckInput, type CheckSource } from '../../lib/diagnose/checks/check.ts';
import type { StorageSample } from '../../lib/diagnose/storage-samples.ts';
import type { Finding } from '../../lib/diagnose/types.ts';
import type { HostProbeOutcome, ProbeReport } from '../../lib/hosts/types.ts';
import type { ClusterSnapshot, CoordinatorView, OpenTransaction, PartitionTransactions, TransactionsView } from '../../lib/kafka/types.ts';
import { config, execution, group, healthyCluster, healthyTopic, okProbe, part, probeReport, snapshot, topic } from './fixtures.ts';
import { LEADER_NOW, lostQuorum, quorum } from './quorum-fixtures.ts';

const ALL_SOURCES: ReadonlySet<CheckSource> = new Set(['metadata', 'hosts', 'broker-configs', 'history']);
const DAY = 86_400_000;
const NOW = LEADER_NOW;

const logDir = probeReport().logDirs[0]!;
const logs = probeReport().logs;
const systemd = (over: Partial<NonNullable<ProbeReport['systemd']>>) => ({ unit: 'kafka.service', activeState: 'active', timeoutStopSec: 600, timeoutStopRaw: '10min', restarts: 0, lastExitStatus: 0, lastExitCode: 'exited', journalTail: [], ...over });
const stopped = { running: false, pid: null, startedAt: null, configPath: null, logsDir: null };
const running = { running: true, pid: 777, startedAt: '2026-01-01T00:00:00Z', configPath: '/etc/kafka/server.properties', logsDir: '/opt/kafka/logs' };
const reg = (id: number, fenced: boolean) => ({ id, host: '127.0.0.1', port: 9090 + id, rack: null, fenced });
const brokerDefaults = (over: Record<string, string> = {}) => ({
  'min.insync.replicas': '2',
  'unclean.leader.election.enable': 'false',
  'default.replication.factor': '3',
  'offsets.topic.replication.factor': '3',
  ...over,
});

/** Host problems, one probe each (broker 1 unless said). */
const HOST_PROBES: readonly HostProbeOutcome[] = [
  okProbe(1, { logs: { ...logs, indexAppendFatal: ['Attempt to append an offset 12 to position 40 no larger than the last offset appended (15)'] } }),
  okProbe(1, { recoveryInProgress: true }),
  okProbe(1, { logs: { ...logs, corruptIndex: ['Found a corrupted index file corresponding to log file /d/00.log'] } }),
  okProbe(1, { logs: { ...logs, uncleanablePartitions: ['Marking its partition (orders-1) as uncleanable'] } }),
  okProbe(1, { consumerOffsets: [{ partition: 7, logDir: '/d', segments: 60, bytes: 1e6, lastLoadStart: null, lastLoadFinish: null, loading: false }] }),
  okProbe(1, { logs: { ...logs, unsupportedRequestVersion: ['Received request api key 3 with version 13 which is not enabled'] } }),
  okProbe(1, { logDirs: [{ ...logDir, partitionDirsWithoutSegments: ['orders-3'], partitionDirsWithoutSegmentsCount: 1 }] }),
  okProbe(1, { logDirs: [{ ...logDir, underVarLog: true }] }),
  okProbe(1, { logDirs: [{ ...logDir, diskUsedPercent: 97, inodeUsedPercent: 97 }] }),
  okProbe(1, { limits: { openFds: 1000, maxFds: 1024, mapCount: 65000, maxMapCount: 65530 } }),
  okProbe(1, { limits: { openFds: 850, maxFds: 1000, mapCount: 10, maxMapCount: 65530 } }),
  okProbe(1, { systemd: systemd({ timeoutStopSec: 90, timeoutStopRaw: '1min 30s' }) }),
  okProbe(1, { systemd: systemd({ timeoutStopSec: 180, timeoutStopRaw: '3min' }), lastShutdownSeconds: 240.4 }),
  okProbe(1, { systemd: systemd({ activeState: 'failed', restarts: 5 }) }),
  { brokerId: 2, ok: false, reason: 'unreachable', message: 'SSM: Undeliverable', execution: execution(2, { status: 'Undeliverable', exitCode: null, stdout: '' }) },
  { brokerId: 2, ok: false, reason: 'malformed', message: 'not JSON', execution: execution(2, { stdout: 'garbage' }) },
];

/** Brokers 1 and 2 live, 3 registered and fenced, 4 holding replicas but gone; orders spread over every replica state. */
function brokenCluster(): ClusterSnapshot {
  const offsets = healthyCluster().topics[0]!;
  return snapshot(
    [
      offsets,
      topic('orders', [part(0, 1, [1, 2, 3], [1, 2]), part(1, -1, [3, 4], [3]), part(2, 2, [2, 1], [2]), part(3, -1, [4], [4]), part(4, 1, [1, 2], [1])], config({ uncleanLeaderElectionEnable: true })),
      topic('payments', [part(0, 1, [1, 2], [1, 2]), part(1, 2, [2, 1], [2, 1])]),
    ],
    {
      brokers: [1, 2, 5].map((id) => ({ id, host: '127.0.0.1', port: 9090 + id, rack: null })),
      unreachableBrokers: [5],
      errors: [{ scope: 'broker:5', message: 'ListGroups: no answer within 3000 ms' }],
      registeredBrokers: { status: 'read', brokers: [reg(1, false), reg(2, false), reg(3, true), reg(5, false), reg(6, true)], reason: null, answeredBy: 1 },
      groups: [group('loading', { state: 'Unknown', error: { code: 14, type: 'COORDINATOR_LOAD_IN_PROGRESS', message: 'loading' } })],
    },
  );
}

const coordinator = (over: Partial<CoordinatorView>): CoordinatorView => ({
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
const openTxn = (firstOffset: number, coordinatorView: CoordinatorView): OpenTransaction => ({ producerId: 4001, producerEpoch: 0, coordinatorEpoch: 3, firstOffset, lastTimestamp: NOW - 20_000, coordinatorView });
const txnPartition = (partition: number, lso: number, open: OpenTransaction[]): PartitionTransactions => ({
  topic: 'orders',
  partition,
  leader: 3,
  samples: [
    { at: NOW - 2_000, highWatermark: 21, lastStableOffset: lso },
    { at: NOW, highWatermark: 25, lastStableOffset: lso },
  ],
  openTransactions: open,
});
const transactions: TransactionsView = {
  status: 'ok',
  reason: null,
  at: NOW,
  maxTransactionTimeoutMs: 900_000,
  errors: [],
  partitions: [
    txnPartition(0, 11, [openTxn(11, coordinator({}))]),
    txnPartition(1, 11, [openTxn(11, coordinator({ state: 'Ongoing', includesPartition: true, startTimeMs: NOW - 60_000 }))]),
    txnPartition(2, 11, [openTxn(11, coordinator({ lookup: 'unknown', transactionalId: null, coordinator: null, state: null, producerId: null, producerEpoch: null, reason: 'COORDINATOR_NOT_AVAILABLE' }))]),
  ],
};

/** A consumer sample of group payments on orders (partitions 0 and 1). */
const consumerSample = (at: number, committed: [number, number], ends: [number, number], start = 0) => ({
  at,
  groups: [{ groupId: 'payments', error: null, offsets: committed.map((offset, partition) => ({ topic: 'orders', partition, offset })) }],
  logOffsets: ends.map((end, partition) => ({ topic: 'orders', partition, start, end })),
});

/** Disk and inode use of /data/kafka on broker 1 climbing toward full. */
const climbing: StorageSample[] = [3, 2, 1].map((d, i) => ({ at: NOW - d * DAY, brokerId: 1, path: '/data/kafka', diskUsedPercent: 55 + 7 * i, inodeUsedPercent: 60 + 9 * i }));

const base = (s: ClusterSnapshot, over: Partial<CheckInput> = {}): CheckInput => ({ snapshot: s, probes: [], lagHistory: [], nowMs: NOW, ...over });

/** Inputs that, together, raise every kind of the table. */
const CASES: readonly CheckInput[] = [
  ...HOST_PROBES.map((p) => base(healthyCluster(), { probes: [p] })),
  base(brokenCluster(), { probes: [okProbe(3, { process: stopped }), okProbe(4, { process: stopped, logDirs: [{ ...logDir, partitionDirCount: 0 }] })] }),
  base(brokenCluster(), { probes: [okProbe(3, { process: running, recoveryInProgress: true }), okProbe(5, { process: stopped })] }),
  base(brokenCluster(), { probes: [okProbe(3, { process: running })] }),
  base(brokenCluster()),
  base(snapshot([healthyTopic('orders', 2)], { transactions, consumerSamples: [] })),
  base(snapshot([healthyTopic('orders', 2)], { groups: [group('payments', { members: 2 })], consumerSamples: [consumerSample(0, [10, 50], [40, 50]), consumerSample(3000, [10, 50], [90, 50])] })),
  base(snapshot([healthyTopic('orders', 2)], { groups: [group('payments', { state: 'Empty', members: 0 })], consumerSamples: [consumerSample(0, [10, 900], [40, 800]), consumerSample(3000, [10, 900], [40, 800])] })),
  base(snapshot([healthyTopic('orders', 2)], { groups: [group('payments', { state: 'Empty', members: 0 })], consumerSamples: [consumerSample(0, [100, 500], [900, 900], 250)] })),
  base(snapshot([healthyTopic('c', 1)], { quorum: lostQuorum() })),
  base(snapshot([healthyTopic('c', 1)], { quorum: quorum({ voters: [100, 101, { id: 102, fetchedAgo: 30_000 }], observers: [1, { id: 2, behind: 5_000, fetchedAgo: 100, caughtUpAgo: 25_000 }] }) })),
  base(snapshot([healthyTopic('c', 1)], { quorum: quorum({ voters: [100, 101, 102, 103, { id: 104, fetchedAgo: 30_000 }] }) })),
  base(snapshot([healthyTopic('c', 1)], { quorum: quorum({ voters: [100, 101] }) }), { profile: 'preventive' }),
  base(
    snapshot([
      topic('__consumer_offsets', [part(0, 1, [1])], config({ minInsyncReplicas: 1 })),
      topic('rf1', [part(0, 1, [1])]),
      healthyTopic('strict', 3, config({ minInsyncReplicas: 3 })),
      healthyTopic('weak', 3, config({ minInsyncReplicas: 1, uncleanLeaderElectionEnable: true, overrides: ['min.insync.replicas', 'unclean.leader.election.enable'] })),
    ]),
    {
      profile: 'preventive',
      probes: [okProbe(1, { logDirs: [{ ...logDir, path: '/data/kafka', diskUsedPercent: 76, inodeUsedPercent: 87 }] })],
      brokerConfigs: new Map([
        [1, brokerDefaults({ 'offsets.topic.replication.factor': '1' })],
        [2, brokerDefaults()],
        [3, brokerDefaults()],
      ]),
      storageHistory: climbing,
    },
  ),
];

/** Every string in a value, however deep. */
function stringsIn(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (v === null || typeof v !== 'object') return [];
  return (v instanceof Map ? [...v.values()] : Object.values(v as object)).flatMap(stringsIn);
}

function findingsOfCases(): { finding: Finding; check: number }[] {
  return CASES.flatMap((input) => runChecks(CHECKS, input, ALL_SOURCES).flatMap((o) => (o.status === 'ran' ? o.findings.map((finding) => ({ finding, check: CHECKS.indexOf(o.check) })) : [])));
}

describe('checks: facts in detect, prose in render', () => {
  const found = findingsOfCases();

  it('the cases raise every kind of the table (a new check adds a case here)', () => {
    expect([...new Set(found.map((f) => f.finding.kind))].sort()).toEqual([...FINDING_KINDS].sort());
  });

  it('every finding of every check is worded by its render, from facts that quote none of its prose', () => {
    for (const { finding, check } of found) {
      const where = `check #${check} (${CHECKS[check]!.kinds.join(', ')}): ${finding.title}`;
      const facts = renderedFacts(finding);
      expect(facts, `${where} was not made by renderFinding`).toBeDefined();
      const prose = [finding.title, finding.summary, ...finding.nextActions].join('\n');
      // A name or a number in the facts shows up in the prose; a sentence (four words or more) written by detect must not.
      const sentences = stringsIn(facts).filter((s) => s.trim().split(/\s+/).length >= 4 && prose.includes(s));
      expect(sentences, `${where}: prose in its facts`).toEqual([]);
    }
  });

  it('no module builds a Finding but check.ts (renderFinding): detect cannot word one itself', () => {
    const root = new URL('../../lib/', import.meta.url).pathname;
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const callers = files.filter((f) => /\bmakeFinding\(/.test(readFileSync(join(root, f), 'utf8'))).map((f) => relative(root, join(root, f)));
    expect(callers.sort()).toEqual(['diagnose/checks/check.ts', 'diagnose/finding.ts']);
  });
});
