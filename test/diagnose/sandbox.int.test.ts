// Diagnosis against the real 3-broker sandbox (test/global-setup.ts brings it
// up and exports KAFKA_BOOTSTRAP_SERVERS, KAFKA_BIN, KR_SANDBOX_HOME). After
// each incident scenario, our offline / under-replicated / under-min-ISR sets
// must equal what kafka-topics.sh reports at the same moment, and the
// findings must name what the scenario broke.

import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { parseConnectionConfig, splitBootstrap } from '../../lib/kafka/connection.ts';
import { partitionHealthSets } from '../../lib/diagnose/partition-filters.ts';
import { collectDiagnosisInputs, diagnosisInputFor, runDiagnosis } from '../../lib/diagnose/run.ts';
import { WireBroker } from '../../lib/kafka/wire.ts';
import { detect } from '../../lib/diagnose/detect.ts';
import { assessRestart } from '../../lib/diagnose/can-restart.ts';
import { resolveClusterTarget } from '../../lib/diagnose/cli-support.ts';
import { sandboxTarget } from '../../lib/cli/sandbox-target.ts';
import type { DiagnosisReport, Finding, FindingKind } from '../../lib/diagnose/types.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import { createTopic, withAdmin } from '../../sandbox/client.ts';
import { sandboxSettings } from '../../sandbox/layout.ts';

const exec = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..');
const bootstrap = process.env.KAFKA_BOOTSTRAP_SERVERS ?? '';
const kafkaBin = process.env.KAFKA_BIN ?? '';
const sandboxHome = process.env.KR_SANDBOX_HOME ?? '';
const ready = Boolean(bootstrap && kafkaBin && sandboxHome && !process.env.KR_SKIP_SANDBOX);
const connection = () => parseConnectionConfig({ bootstrap: splitBootstrap(bootstrap) });
/** Kafka 4.x in KRaft mode: DescribeCluster v2 (fenced brokers) and a controller quorum to describe. */
const kafka4Kraft = () => {
  const line = sandboxSettings();
  return line.mode === 'kraft' && Number(line.kafkaVersion.split('.')[0]) >= 4;
};

async function sandbox(...args: string[]): Promise<string> {
  const { stdout } = await exec('npx', ['kafka-responder', 'sandbox', ...args], { cwd: repo, env: process.env, timeout: 480_000, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

const TOOL_FILTERS = {
  unavailable: '--unavailable-partitions',
  underReplicated: '--under-replicated-partitions',
  underMinIsr: '--under-min-isr-partitions',
} as const;
type SetName = keyof typeof TOOL_FILTERS;
type Sets = Record<SetName, string[]>;

/** kafka-topics.sh --describe <filter>: one "Topic: t<TAB>Partition: n<TAB>..." line per partition. */
async function toolSet(filter: string): Promise<string[]> {
  const { stdout } = await exec(join(kafkaBin, 'kafka-topics.sh'), ['--bootstrap-server', bootstrap, '--describe', filter], { timeout: 60_000 });
  const out: string[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^\s*Topic:\s*(\S+)\s+Partition:\s*(\d+)\s/.exec(line);
    if (m) out.push(`${m[1]}:${m[2]}`);
  }
  return out.sort();
}

function ourSets(s: ClusterSnapshot): Sets {
  const sets = partitionHealthSets(s);
  const ids = (xs: { topic: string; partition: number }[]) => xs.map((x) => `${x.topic}:${x.partition}`).sort();
  return { unavailable: ids(sets.unavailable), underReplicated: ids(sets.underReplicated), underMinIsr: ids(sets.underMinIsr) };
}

/**
 * Our sets and the tool's, read at the same moment: snapshot, tool, snapshot
 * again; if the cluster moved in between, try again.
 */
async function setsAtOneMoment(): Promise<{ ours: Sets; tool: Sets }> {
  for (let attempt = 0; ; attempt++) {
    const before = ourSets(await takeSnapshot(connection(), { timeoutMs: 15_000 }));
    const tool = {} as Sets;
    for (const [name, flag] of Object.entries(TOOL_FILTERS) as [SetName, string][]) tool[name] = await toolSet(flag);
    const after = ourSets(await takeSnapshot(connection(), { timeoutMs: 15_000 }));
    if (JSON.stringify(before) === JSON.stringify(after) || attempt >= 4) return { ours: after, tool };
  }
}

async function diagnose(): Promise<DiagnosisReport> {
  return runDiagnosis(diagnosisInputFor(await resolveClusterTarget({}, process.env, sandboxTarget)));
}

const find = (r: DiagnosisReport, kind: FindingKind): Finding[] => r.findings.filter((f) => f.kind === kind);
const serious = (r: DiagnosisReport) => r.findings.filter((f) => f.severity !== 'info').map((f) => `${f.severity} ${f.kind}: ${f.title}`);

describe.skipIf(!ready)('diagnosis on the sandbox', { timeout: 600_000 }, () => {
  it('healthy cluster: sets equal kafka-topics.sh (all empty) and no finding of warning or worse', async () => {
    await sandbox('scenario', 'healthy');
    const { ours, tool } = await setsAtOneMoment();
    expect(ours).toEqual(tool);
    expect(ours).toEqual({ unavailable: [], underReplicated: [], underMinIsr: [] });
    // Earlier scenarios can leave residue that the cluster clears by itself (e.g. an
    // uncompacted __consumer_offsets partition): give it time to settle, then insist.
    let report = await diagnose();
    for (let i = 0; i < 12 && serious(report).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 5000));
      report = await diagnose();
    }
    expect(serious(report)).toEqual([]);
    expect(report.partial).toBe(false);
    // A line without an API says so in one line each (fenced brokers before 4.0, the quorum in ZooKeeper
    // mode), never as an error; 4.x in KRaft mode has them all.
    const missingOnThisLine = /not available on this Kafka line|there is no KRaft quorum to check/;
    if (kafka4Kraft()) expect(report.skippedChecks).toEqual([]);
    else expect(report.skippedChecks.filter((c) => !missingOnThisLine.test(c))).toEqual([]);
  });

  it('the transactions are read beside the snapshot over its connections: no connection of their own, each closed once, by the snapshot', async () => {
    // A topic with leaders, whichever tests ran before (the healthy scenario may leave none): DescribeProducers needs partitions to ask about.
    await withAdmin(bootstrap, async (admin) => {
      if (!(await admin.listTopics()).includes('txn-read-conns')) await createTopic(admin, 'txn-read-conns', { assignment: [[1, 2, 3]] });
    });
    const request = vi.spyOn(WireBroker.prototype, 'request');
    const disconnect = vi.spyOn(WireBroker.prototype, 'disconnect');
    try {
      const { snapshot } = await collectDiagnosisInputs({ connection: connection(), timeoutMs: 20_000, lagWindowMs: 0 });
      expect(snapshot.transactions?.status).toBe('ok');
      const connsAsked = (api: string) => new Set(request.mock.calls.flatMap((call, i) => (call[0].apiName === api ? [request.mock.contexts[i]] : [])));
      // ListGroups is the snapshot's alone: one per broker, on the connections it opened.
      const snapshotConns = connsAsked('ListGroups');
      const transactionConns = connsAsked('DescribeProducers');
      expect(snapshotConns.size).toBe(snapshot.brokers.length);
      expect(transactionConns.size).toBeGreaterThan(0);
      for (const c of transactionConns) expect(snapshotConns.has(c)).toBe(true);
      const closed = disconnect.mock.contexts;
      for (const c of snapshotConns) expect(closed.filter((x) => x === c)).toHaveLength(1);
    } finally {
      request.mockRestore();
      disconnect.mockRestore();
      await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: ['txn-read-conns'], timeout: 30_000 })).catch(() => {});
    }
  });

  it('rf1-broker-down: offline partitions grouped behind broker 3, sets equal kafka-topics.sh', async () => {
    await sandbox('scenario', 'rf1-broker-down');
    const { ours, tool } = await setsAtOneMoment();
    expect(ours).toEqual(tool);
    expect(ours.unavailable).toEqual(['logs-rf1:2', 'logs-rf1:5']);
    const report = await diagnose();
    const offline = find(report, 'offline-partition');
    expect(offline).toHaveLength(1);
    expect(offline[0]!.affected.brokers).toEqual([3]);
    expect(find(report, 'replication-factor-one')).toHaveLength(1);
    // Kafka 4.0+ in KRaft mode lists the stopped broker as registered and fenced (DescribeCluster v2):
    // broker-fenced. Older lines cannot tell fenced from gone: broker-unreachable.
    const downKind = kafka4Kraft() ? 'broker-fenced' : 'broker-unreachable';
    expect(find(report, downKind).map((f) => f.affected.brokers)).toEqual([[3]]);
    expect(find(report, downKind === 'broker-fenced' ? 'broker-unreachable' : 'broker-fenced')).toEqual([]);
  });

  it('isr-one-leader-lost: the leaderless partition matches kafka-topics.sh and is tied to the wiped broker', async () => {
    await sandbox('scenario', 'isr-one-leader-lost');
    const { ours, tool } = await setsAtOneMoment();
    expect(ours).toEqual(tool);
    expect(ours.unavailable).toContain('orders:0');
    // Already offline: restarting broker 2 or 3 cannot make it worse, and can-restart must not count it.
    const snap = await takeSnapshot(connection(), { timeoutMs: 15_000 });
    const a = assessRestart(snap, 2);
    expect(a.wouldGoOffline.map((p) => `${p.topic}:${p.partition}`)).not.toContain('orders:0');
    expect(a.notes.join(' ')).toMatch(/Broker 1 is down/);
    const report = await diagnose();
    const offline = find(report, 'offline-partition');
    expect(offline.flatMap((f) => f.affected.partitions).map((p) => `${p.topic}:${p.partition}`)).toContain('orders:0');
    expect(offline.flatMap((f) => f.affected.brokers)).toContain(1);
    // Broker 1 was wiped: its host probe finds no partition data, and the advice is not "start it".
    const orders = offline.find((f) => f.affected.partitions.some((p) => p.topic === 'orders'))!;
    expect(orders.nextActions[0]).toMatch(/^Do not start broker 1 yet/);
  });

  it('missing-segments: empty partition dir on broker 2 found by the host probe; sets equal kafka-topics.sh', async () => {
    await sandbox('scenario', 'missing-segments');
    const { ours, tool } = await setsAtOneMoment();
    expect(ours).toEqual(tool);
    const report = await diagnose();
    const missing = find(report, 'missing-segments');
    expect(missing.map((f) => f.affected.brokers)).toEqual([[2]]);
  });

  it('unclean-restart: broker 2 is reported as having recovered from an unclean shutdown', async () => {
    await sandbox('scenario', 'unclean-restart');
    const report = await diagnose();
    const recovered = find(report, 'unclean-shutdown-recovery').map((f) => f.affected.brokers);
    if (sandboxSettings().kafkaVersion.startsWith('2.')) {
      // 2.8 logs "Attempting recovery for all logs in <dir>" with no count, so broker 1, killed and
      // wiped by isr-one-leader-lost and started on an empty dir since, shows as well.
      expect(recovered).toContainEqual([2]);
      expect(recovered.flat().every((b) => b === 1 || b === 2)).toBe(true);
    } else {
      expect(recovered).toEqual([[2]]);
    }
    const { ours, tool } = await setsAtOneMoment();
    expect(ours).toEqual(tool);
  });

  it('corrupt-index: broker 3\'s rebuilt index is reported with the log line', async () => {
    await sandbox('scenario', 'corrupt-index');
    const report = await diagnose();
    const f = find(report, 'corrupt-index');
    expect(f.map((x) => x.affected.brokers)).toEqual([[3]]);
    // Kafka names the segment it rebuilt; which one depends on what its sanity checks trip on.
    const dataDir = join(sandboxHome, 'broker-3', 'data', 'kafka-logs');
    expect(f[0]!.evidence.some((e) => e.value.includes('Found a corrupted index file') && e.value.includes(dataDir))).toBe(true);
  });

  it('offsets-loading: groups are tied to their __consumer_offsets partition (Java hash) and its leader; the oversized partition is reported', async () => {
    const result = JSON.parse(await sandbox('scenario', 'offsets-loading')) as {
      expect: { groups: { groupId: string; offsetsPartition: number }[]; consumerOffsets: { partition: number; leader: number } };
    };
    const { partition } = result.expect.consumerOffsets;
    const ids = result.expect.groups.map((g) => g.groupId);
    // Right after the scenario the coordinator may still be replaying the partition:
    // then it answers ListGroups with a coordinator error and the diagnosis must say so.
    let snap = await takeSnapshot(connection(), { timeoutMs: 15_000 });
    const leader = snap.topics.find((t) => t.name === '__consumer_offsets')!.partitions[partition]!.leader;
    if (!ids.every((id) => snap.groups.some((g) => g.groupId === id))) {
      expect(snap.coordinatorErrors?.map((e) => e.brokerId)).toContain(leader);
      const loading = detect(snap, []).filter((f) => f.kind === 'coordinator-loading');
      expect(loading.map((f) => f.affected.brokers)).toContainEqual([leader]);
      for (let i = 0; i < 60 && !ids.every((id) => snap.groups.some((g) => g.groupId === id)); i++) {
        await new Promise((r) => setTimeout(r, 1000));
        snap = await takeSnapshot(connection(), { timeoutMs: 15_000 });
      }
    }
    for (const { groupId } of result.expect.groups) {
      const g = snap.groups.find((x) => x.groupId === groupId);
      expect(g, groupId).toBeDefined();
      expect(g!.offsetsPartition).toBe(partition);
      // We sent DescribeGroups straight to the leader of the partition our hash chose:
      // a wrong hash would have hit a broker answering NOT_COORDINATOR (16).
      expect(g!.coordinator).toBe(leader);
      expect(g!.error?.code ?? 0, `${groupId}: ${g!.error?.type}`).not.toBe(16);
    }
    const report = await diagnose();
    const oversized = find(report, 'consumer-offsets-oversized');
    expect(oversized).toHaveLength(1);
    expect(oversized[0]!.affected.partitions).toContainEqual({ topic: '__consumer_offsets', partition });
    expect(oversized[0]!.affected.brokers).toEqual([1, 2, 3]);
    // The reload the scenario triggers takes about two seconds; if it is still running, it must name the leader.
    for (const f of find(report, 'coordinator-loading')) expect(f.affected.brokers).toEqual([leader]);

    // Now catch a reload for certain: stop the coordinator while snapshots run back to back. Another
    // replica takes over and replays ~1M records; for those seconds it answers
    // COORDINATOR_LOAD_IN_PROGRESS and the finding must name that new coordinator.
    let caught: { finding: Finding; newLeader: number } | undefined;
    let stoppedAt = Infinity;
    const poll = (async () => {
      const deadline = Date.now() + 60_000;
      while (!caught && Date.now() < deadline && Date.now() < stoppedAt + 30_000) {
        const s = await takeSnapshot(connection(), { timeoutMs: 5_000 }).catch(() => null);
        const finding = s ? detect(s, []).find((f) => f.kind === 'coordinator-loading' && !f.affected.brokers.includes(leader)) : undefined;
        const newLeader = s?.topics.find((t) => t.name === '__consumer_offsets')?.partitions[partition]?.leader;
        if (finding && newLeader !== undefined) caught = { finding, newLeader };
      }
    })();
    await sandbox('stop', String(leader));
    stoppedAt = Date.now();
    await poll;
    await sandbox('start', String(leader));
    expect(caught, 'no diagnosis saw the new coordinator loading').toBeDefined();
    expect(caught!.finding.affected.brokers).toEqual([caught!.newLeader]);
    expect(caught!.finding.severity).not.toBe('info');
  });

  it('a broker that hangs and is then killed during the diagnosis: a complete report naming it', async () => {
    await sandbox('scenario', 'healthy');
    const pid = Number((await readFile(join(sandboxHome, 'broker-2', 'broker.pid'), 'utf8')).trim());
    expect(pid).toBeGreaterThan(1);
    // Freeze broker 2 so our requests to it are in flight, then kill it mid-diagnosis.
    process.kill(pid, 'SIGSTOP');
    try {
      const t0 = Date.now();
      const pending = runDiagnosis({ connection: connection(), timeoutMs: 8_000 });
      setTimeout(() => process.kill(pid, 'SIGKILL'), 1_500);
      const report = await pending;
      expect(Date.now() - t0).toBeLessThan(12_000);
      expect(report.partial).toBe(true);
      expect(find(report, 'broker-unreachable').flatMap((f) => f.affected.brokers)).toContain(2);
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // already dead: the SIGKILL landed
      }
    }
    await sandbox('start', '2');
  });
});
