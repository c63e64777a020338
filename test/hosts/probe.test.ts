// Runs the real probe.sh through LocalExecutor against fabricated host
// directories, then parses its output: the whole path a sandbox probe takes.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync, writeFileSync, existsSync, appendFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LocalExecutor } from '../../lib/hosts/local-executor.ts';
import { HOST_SCRIPTS } from '../../lib/hosts/scripts.ts';
import { probeHosts, probeParams } from '../../lib/hosts/probe-runner.ts';
import type { HostProbeOutcome, ProbeReport } from '../../lib/hosts/types.ts';
import { createFakeHost, log4j, type FakeHost } from './fake-host.ts';

const root = mkdtempSync(join(tmpdir(), 'kr-probe-test-'));
const executor = new LocalExecutor();
const running: FakeHost[] = [];
let seq = 0;

afterEach(() => {
  for (const h of running.splice(0)) h.stop();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function host(spec: Parameters<typeof createFakeHost>[1]): FakeHost {
  return createFakeHost(join(root, `host-${++seq}`), spec);
}

async function probeOne(h: FakeHost, brokerId = 1): Promise<ProbeReport> {
  const [outcome] = await probeHosts(executor, [{ brokerId, address: h.hostDir }], { timeoutMs: 20_000 });
  if (!outcome?.ok) throw new Error(`probe failed: ${JSON.stringify(outcome)}`);
  return outcome.report;
}

const LM = 'kafka.log.LogManager';
/** The probe cuts each log line to 500 bytes (all test lines are ASCII). */
const cut = (...lines: (string | undefined)[]) => lines.map((l) => (l ?? '').slice(0, 500));
const LL = 'kafka.log.LogLoader';

describe('probe.sh on a 3.x broker restarted after kill -9, still recovering', () => {
  it('reports the unclean log dir, recovery in progress, corrupt indexes, but not __cluster_metadata', async () => {
    const h = host({ brokerId: 2, partitions: [{ name: 'A-34', segments: 3 }, { name: 'A-35', segments: 1 }, { name: '__cluster_metadata-0', segments: 1 }] });
    const D = h.logDirs[0]!;
    const previousStart = [
      log4j('06:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM),
      log4j('06:00:00,100', 'INFO', `[LogLoader partition=A-34, dir=${D}] Recovering unflushed segment 0. 0/1 recovered for A-34.`, LL),
      log4j('06:00:01,000', 'INFO', `Loaded 2 logs in 900ms.`, LM),
    ];
    const latestStart = [
      log4j('07:00:00,000', 'INFO', '[BrokerServer id=2] Transition from SHUTDOWN to STARTING', 'kafka.server.BrokerServer'),
      log4j('07:00:00,010', 'INFO', `[LogLoader partition=__cluster_metadata-0, dir=${D}] Recovering unflushed segment 0. 0/1 recovered for __cluster_metadata-0.`, LL),
      log4j('07:00:01,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM),
      log4j('07:00:01,001', 'INFO', `Recovering 2 logs from ${D} since no clean shutdown file was found`, LM),
      log4j('07:00:01,200', 'WARN', `[LogLoader partition=A-34, dir=${D}] Found a corrupted index file corresponding to log file ${D}/A-34/00000000000000002000.log due to Corrupt index found, index file ${D}/A-34/00000000000000002000.index has non-zero size but the last offset is 1100 which is less than the base offset 2000}, recovering segment and rebuilding index files...`, LL),
      log4j('07:00:01,300', 'INFO', `[LogLoader partition=A-34, dir=${D}] Recovering unflushed segment 2000. 1/1 recovered for A-34.`, LL),
      log4j('07:00:01,400', 'INFO', `Completed load of Log(dir=${D}/A-35, topic=A, partition=35, highWatermark=0, lastStableOffset=0, logStartOffset=0, logEndOffset=0) with 1 segments, local-log-start-offset 0 and log-end-offset 0 in 3ms (1/2 completed in ${D})`, LM),
    ];
    writeFileSync(join(h.logsDir, 'server.log'), [...previousStart, ...latestStart].map((l) => l + '\n').join(''));
    running.push(h);
    const child = h.start();

    const r = await probeOne(h, 2);

    expect(r.brokerId).toBe(2);
    expect(r.kafkaVersion).toBe('3.6.2');
    expect(r.process.running).toBe(true);
    expect(r.process.pid).toBe(child.pid);
    expect(r.process.configPath).toBe(h.configPath);
    expect(r.process.logsDir).toBe(h.logsDir);
    expect(r.process.startedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(r.recoveryInProgress).toBe(true);
    expect(r.logs.uncleanShutdownRecovery).toEqual(cut(latestStart[3]));
    expect(r.logs.corruptIndex).toEqual(cut(latestStart[4]));
    // From the latest start only, and never the metadata log's recovery.
    expect(r.logs.recoveryProgress).toEqual(cut(latestStart[2], latestStart[3], latestStart[5], latestStart[6]));
    expect(r.logs.recoveryProgress.join('\n')).not.toContain('__cluster_metadata');
    expect(r.logLoading).toMatchObject({ logsLoaded: 1, logsTotal: 2, finishLine: null, startLine: latestStart[2] });
    expect(r.logs.indexAppendFatal).toEqual([]);
    expect(r.logDirs).toHaveLength(1);
    expect(r.logDirs[0]).toMatchObject({
      path: D,
      exists: true,
      cleanShutdownMarker: false,
      partitionDirCount: 3,
      partitionDirsWithoutSegmentsCount: 0,
      underVarLog: false,
    });
    expect(r.logDirs[0]!.diskUsedPercent).toBeGreaterThanOrEqual(0);
    expect(r.logDirs[0]!.fsType).toBeTruthy();
    expect(r.limits.openFds).toBeGreaterThanOrEqual(3);
    expect(r.limits.maxFds).toBeGreaterThan(0);
    expect(r.limits.mapCount).toBeGreaterThan(0);
    expect(r.limits.maxMapCount).toBeGreaterThan(0);
    expect(r.systemd).toBeNull();
    expect(r.warnings).toEqual([]);
  });

  it('says recovery is over once "Loaded N logs" follows the latest start, and reads only the newest bytes', async () => {
    const h = host({ brokerId: 1, partitions: [{ name: 'A-0', segments: 1 }] });
    const D = h.logDirs[0]!;
    const filler = Array.from({ length: 2000 }, (_, i) => log4j('06:59:59,000', 'INFO', `filler line ${i} ${'z'.repeat(80)}`, 'kafka.server.ReplicaFetcherThread'));
    const lines = [
      log4j('06:00:00,000', 'WARN', `[LogLoader partition=A-0, dir=${D}] Found a corrupted index file corresponding to log file ${D}/A-0/00000000000000000000.log due to Corrupt index found, index file ${D}/A-0/00000000000000000000.index has non-zero size but the last offset is 1 which is less than the base offset 5}, recovering segment and rebuilding index files...`, LL),
      ...filler,
      log4j('07:00:01,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM),
      log4j('07:00:01,001', 'INFO', `Skipping recovery of 1 logs from ${D} since clean shutdown file was found`, LM),
      log4j('07:00:02,000', 'INFO', 'Loaded 1 logs in 999ms', LM),
    ];
    writeFileSync(join(h.logsDir, 'server.log'), lines.map((l) => l + '\n').join(''));
    running.push(h);
    h.start();
    const [outcome] = await probeHosts(executor, [{ brokerId: 1, address: h.hostDir }], { timeoutMs: 20_000 });
    expect(outcome?.ok).toBe(true);
    const r = (outcome as Extract<HostProbeOutcome, { ok: true }>).report;
    expect(r.recoveryInProgress).toBe(false);
    expect(r.logs.uncleanShutdownRecovery).toEqual([]);
    expect(r.logLoading?.finishLine).toBe(lines.at(-1));
    // The corrupt-index line is in the file: the default window (40 MB) sees it.
    expect(r.logs.corruptIndex).toEqual(cut(lines[0]));
  });
});

describe('probe.sh with the pid file a host keeps (the sandbox\'s broker.pid)', () => {
  it('takes that process when it is the broker of the config, and searches every process when the file is stale', async () => {
    const h = host({ brokerId: 5 });
    writeFileSync(join(h.logsDir, 'server.log'), log4j('07:00:00,000', 'INFO', 'Loading logs.', LM) + '\n');
    running.push(h);
    const child = h.start();
    // Another broker-like process (another config) is what a stale pid file may name.
    const other = host({ brokerId: 6 });
    running.push(other);
    const otherChild = other.start();

    writeFileSync(join(h.hostDir, 'broker.pid'), `${child.pid}\n`);
    expect(probeParams(executor, { brokerId: 5, address: h.hostDir })).toMatchObject({ pidFile: join(h.hostDir, 'broker.pid') });
    expect((await probeOne(h, 5)).process.pid).toBe(child.pid);

    writeFileSync(join(h.hostDir, 'broker.pid'), `${otherChild.pid}\n`);
    expect((await probeOne(h, 5)).process.pid).toBe(child.pid);
    writeFileSync(join(h.hostDir, 'broker.pid'), '999999999\n');
    expect((await probeOne(h, 5)).process.pid).toBe(child.pid);
    // Written without a newline (as the sandbox writes it) it still names the process: of two
    // processes of this config, the one it names is taken, and no other is looked at.
    const twin = spawn('bash', ['-c', 'sleep 600; :', 'java', '-Xmx1G', `-Dkafka.logs.dir=${h.logsDir}`, '-cp', `${join(h.hostDir, 'libs')}/*`, 'kafka.Kafka', h.configPath], { detached: true, stdio: 'ignore' });
    try {
      for (let i = 0; i < 100 && !readFileSync(`/proc/${twin.pid}/cmdline`, 'utf8').includes('kafka.Kafka'); i++) await new Promise((r) => setTimeout(r, 20));
      writeFileSync(join(h.hostDir, 'broker.pid'), String(twin.pid));
      const r = await probeOne(h, 5);
      expect(r.process.pid).toBe(twin.pid);
      expect(r.warnings.filter((w) => /several kafka\.Kafka/.test(w))).toEqual([]);
    } finally {
      process.kill(-twin.pid!, 'SIGKILL');
    }
  });
});

describe('probe.sh on a broker started with a relative config path', () => {
  it('reads the config the process names from its working directory when no --config is given, the given one otherwise', async () => {
    const h = host({ brokerId: 7 });
    writeFileSync(join(h.logsDir, 'server.log'), log4j('07:00:00,000', 'INFO', 'Loading logs.', LM) + '\n');
    running.push(h);
    const child = h.start({ relativeConfig: true });
    const pidFile = join(h.hostDir, 'broker.pid');
    writeFileSync(pidFile, `${child.pid}\n`);
    // Its pid names it only once it runs as the broker (not as the fork before exec).
    for (let i = 0; i < 100 && !readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').includes('kafka.Kafka'); i++) await new Promise((r) => setTimeout(r, 20));
    const probe = async (params: Record<string, string>) => {
      const [res] = await executor.run([{ brokerId: 7, address: h.hostDir }], { script: 'probe', params, timeoutMs: 20_000, comment: 't' });
      const { parseProbeOutput } = await import('../../lib/hosts/probe-output.ts');
      return parseProbeOutput(res!.stdout).process;
    };
    // The pid file names the process; only its command line names the config, relative to its cwd.
    expect(await probe({ pidFile })).toMatchObject({ pid: child.pid, configPath: h.configPath });
    expect(await probe({ pidFile, config: h.configPath })).toMatchObject({ pid: child.pid, configPath: h.configPath });
  });
});

describe('probe.sh on a 0.11 broker that died on the index append (incident 1)', () => {
  it('reports the fatal error, the corrupt indexes and the unclean start from segment recovery', async () => {
    const h = host({ brokerId: 0, zookeeperEra: true, kafkaVersion: '0.11.0.2', partitions: [{ name: 'A-34', segments: 2 }] });
    const D = h.logDirs[0]!;
    const lines = [
      log4j('07:00:00,000', 'INFO', 'starting', 'kafka.server.KafkaServer'),
      log4j('07:00:01,000', 'INFO', 'Loading logs.', LM),
      log4j('07:00:01,100', 'WARN', `Found a corrupted index file due to requirement failed: Corrupt index found, index file (${D}/A-34/00000000000000001000.index) has non-zero size but the last offset is 1000 which is no larger than the base offset 1000.}. deleting ${D}/A-34/00000000000000001000.timeindex, ${D}/A-34/00000000000000001000.index, and ${D}/A-34/00000000000000001000.txnindex and rebuilding index...`, 'kafka.log.Log'),
      log4j('07:00:01,200', 'INFO', 'Recovering unflushed segment 1000 in log A-34.', 'kafka.log.Log'),
      log4j('07:00:01,300', 'FATAL', '[Kafka Server 0], Fatal error during KafkaServer startup. Prepare to shutdown', 'kafka.server.KafkaServer'),
      `kafka.common.InvalidOffsetException: Attempt to append an offset (1000) to position 12 no larger than the last offset appended (1044) to ${D}/A-34/00000000000000001000.index.`,
      '\tat kafka.log.OffsetIndex$$anonfun$append$1.apply$mcV$sp(OffsetIndex.scala:148)',
    ];
    writeFileSync(join(h.logsDir, 'server.log'), lines.map((l) => l + '\n').join(''));
    // No process: the broker is down.
    const r = await probeOne(h, 0);
    expect(r.process).toMatchObject({ running: false, pid: null, configPath: h.configPath, logsDir: h.logsDir });
    expect(r.brokerId).toBe(0);
    expect(r.kafkaVersion).toBe('0.11.0.2');
    expect(r.recoveryInProgress).toBe(false);
    expect(r.logs.indexAppendFatal).toEqual(cut(lines[5]));
    expect(r.logs.corruptIndex).toEqual(cut(lines[2]));
    expect(r.logs.uncleanShutdownRecovery).toEqual(cut(lines[3]));
    expect(r.logDirs[0]!.cleanShutdownMarker).toBe(false);
    expect(r.limits).toMatchObject({ openFds: null, maxFds: null, mapCount: null });
  });
});

describe('probe.sh: __consumer_offsets size and loading (incident 2)', () => {
  it('counts segments and bytes per partition and tells loading from loaded, epoch by epoch', async () => {
    const h = host({
      brokerId: 3,
      partitions: [
        { name: '__consumer_offsets-0', segments: 3, segmentBytes: 100 },
        { name: '__consumer_offsets-1', segments: 1, segmentBytes: 7 },
        { name: '__consumer_offsets-2', segments: 2, segmentBytes: 50 },
        { name: '__consumer_offsets-3', segments: 40, segmentBytes: 1000 },
      ],
    });
    const D = h.logDirs[0]!;
    const CR = 'org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime';
    const lines = [
      log4j('07:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM),
      log4j('07:00:00,500', 'INFO', 'Loaded 4 logs in 500ms', LM),
      log4j('07:00:01,000', 'INFO', '[GroupCoordinator id=3] Scheduling loading of metadata from __consumer_offsets-0 with epoch 4', CR),
      log4j('07:00:01,001', 'INFO', '[GroupCoordinator id=3] Scheduling loading of metadata from __consumer_offsets-1 with epoch 4', CR),
      log4j('07:00:01,002', 'INFO', '[GroupCoordinator id=3] Scheduling loading of metadata from __consumer_offsets-2 with epoch 4', CR),
      log4j('07:00:01,003', 'INFO', '[GroupCoordinator id=3] Scheduling loading of metadata from __consumer_offsets-3 with epoch 4', CR),
      log4j('07:00:01,100', 'INFO', '[GroupCoordinator id=3] Finished loading of metadata from __consumer_offsets-0 with epoch 4 in 100ms where 0ms was spent in the scheduler. Loaded 12 records which total to 300 bytes.', CR),
      log4j('07:00:01,200', 'INFO', '[GroupCoordinator id=3] Finished loading of metadata from __consumer_offsets-2 with epoch 4 in 200ms where 0ms was spent in the scheduler. Loaded 1 records which total to 100 bytes.', CR),
      // Leadership moved and came back: a new epoch whose load has not finished.
      log4j('07:00:02,000', 'INFO', '[GroupCoordinator id=3] Scheduling loading of metadata from __consumer_offsets-2 with epoch 5', CR),
      log4j('07:00:03,000', 'ERROR', '[GroupCoordinator id=3] Failed to load metadata from __consumer_offsets-1 with epoch 4 due to org.apache.kafka.common.errors.NotLeaderOrFollowerException: boom.', CR),
    ];
    writeFileSync(join(h.logsDir, 'server.log'), lines.map((l) => l + '\n').join(''));
    running.push(h);
    h.start();
    const r = await probeOne(h, 3);
    expect(r.consumerOffsets.map((p) => [p.partition, p.segments, p.bytes, p.loading])).toEqual([
      [0, 3, 300, false],
      [1, 1, 7, true],
      [2, 2, 100, true],
      [3, 40, 40_000, true],
    ]);
    expect(r.consumerOffsets[0]).toMatchObject({ logDir: D, lastLoadStart: cut(lines[2])[0], lastLoadFinish: cut(lines[6])[0] });
    expect(r.consumerOffsets[2]).toMatchObject({ lastLoadStart: cut(lines[8])[0], lastLoadFinish: cut(lines[7])[0] });
    expect(r.logs.consumerOffsetsLoadErrors).toEqual(cut(lines[9]));
  });

  it('does not call a load from before the latest restart "loading"', async () => {
    const h = host({ brokerId: 3, partitions: [{ name: '__consumer_offsets-9', segments: 1 }] });
    const D = h.logDirs[0]!;
    const GMM = 'kafka.coordinator.group.GroupMetadataManager';
    writeFileSync(
      join(h.logsDir, 'server.log'),
      [
        log4j('06:00:00,000', 'INFO', '[GroupMetadataManager brokerId=3] Scheduling loading of offsets and group metadata from __consumer_offsets-9 for epoch 2', GMM),
        log4j('07:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM),
        log4j('07:00:00,500', 'INFO', 'Loaded 1 logs in 500ms', LM),
      ].join('\n') + '\n',
    );
    running.push(h);
    h.start();
    const r = await probeOne(h, 3);
    expect(r.consumerOffsets).toHaveLength(1);
    expect(r.consumerOffsets[0]!.loading).toBe(false);
  });
});

describe('probe.sh: vanished segments, log cleaner, unsupported versions, risky dirs (incidents 2 and 4)', () => {
  it('lists partition dirs without segments and reads log-cleaner.log', async () => {
    const h = host({
      brokerId: 4,
      cleanShutdown: true,
      partitions: [
        { name: 'logs-0', segments: 0 },
        { name: 'logs-1', segments: 0 },
        { name: 'logs-2', segments: 2 },
        { name: 'logs-3.abcdef-delete', segments: 0 },
      ],
    });
    const D = h.logDirs[0]!;
    const cleaner = [
      log4j('07:10:00,000', 'INFO', '[kafka-log-cleaner-thread-0]: Starting', 'kafka.log.LogCleaner'),
      log4j('07:11:00,000', 'WARN', `[kafka-log-cleaner-thread-0]: Unexpected exception thrown when cleaning log Log(dir=${D}/__consumer_offsets-7, topic=__consumer_offsets, partition=7, highWatermark=10, lastStableOffset=10, logStartOffset=0, logEndOffset=10). Marking its partition (__consumer_offsets-7) as uncleanable`, 'kafka.log.LogCleaner'),
      'java.lang.IllegalStateException: Log segment size is larger than the cleaner buffer',
    ];
    const server = [
      log4j('07:00:00,000', 'INFO', 'Loading logs.', LM),
      log4j('07:00:00,100', 'INFO', 'Logs loading complete in 100 ms.', LM),
      log4j('07:05:00,000', 'ERROR', '[kafka-log-cleaner-thread-1]: Error due to', 'kafka.log.LogCleaner'),
      'java.lang.IllegalArgumentException: requirement failed: 2437986 messages in segment __consumer_offsets-12/00000000000000000000.log but offset map can fit only 1048575.',
      log4j('07:06:00,000', 'ERROR', 'Closing socket for 10.0.0.5:9092-10.0.0.9:53211-7 because of error', 'kafka.network.Processor'),
      'org.apache.kafka.common.errors.InvalidRequestException: Error getting request for apiKey: FETCH, apiVersion: 11, connectionId: 10.0.0.5:9092-10.0.0.9:53211-7, listenerName: ListenerName(PLAINTEXT), principal: User:ANONYMOUS',
      log4j('07:20:00,000', 'WARN', `[Log partition=logs-0, dir=${D}] Deleting all segments because logEndOffset (0) is smaller than logStartOffset (1350). This could happen if segment files were deleted from the file system.`, 'kafka.log.Log'),
    ];
    writeFileSync(join(h.logsDir, 'server.log'), server.map((l) => l + '\n').join(''));
    writeFileSync(join(h.logsDir, 'log-cleaner.log'), cleaner.map((l) => l + '\n').join(''));

    const r = await probeOne(h, 4);
    expect(r.logDirs[0]).toMatchObject({
      cleanShutdownMarker: true,
      partitionDirCount: 3,
      partitionDirsWithoutSegments: ['logs-0', 'logs-1'],
      partitionDirsWithoutSegmentsCount: 2,
    });
    expect(r.logs.uncleanablePartitions).toEqual(cut(cleaner[1]));
    expect(r.logs.logCleanerFailure).toEqual(cut(server[2], server[3]));
    expect(r.logs.unsupportedRequestVersion).toEqual(cut(server[5]));
    expect(r.logs.segmentsMissing).toEqual(cut(server[6]));
  });

  it('flags a log dir under /var/log and one on tmpfs', async () => {
    const shm = '/dev/shm';
    const onTmpfs = existsSync(shm) ? mkdtempSync(join(shm, 'kr-probe-')) : null;
    try {
      const dirs = ['/var/log', ...(onTmpfs ? [onTmpfs] : [])];
      const h = host({ brokerId: 5 });
      writeFileSync(h.configPath, `node.id=5\nlog.dirs=${dirs.join(',')}\n`);
      const r = await probeOne(h, 5);
      expect(r.logDirs[0]).toMatchObject({ path: '/var/log', exists: true, underVarLog: true });
      if (onTmpfs) expect(r.logDirs[1]).toMatchObject({ path: onTmpfs, onTmpfs: true, fsType: 'tmpfs', underVarLog: false });
    } finally {
      if (onTmpfs) rmSync(onTmpfs, { recursive: true, force: true });
    }
  });

  it('reports a configured log dir that is missing', async () => {
    const h = host({ brokerId: 6 });
    writeFileSync(h.configPath, `broker.id=6\nlog.dirs=${h.hostDir}/nope/ , \n`); // trailing slash and empty entry
    const r = await probeOne(h, 6);
    expect(r.logDirs).toEqual([expect.objectContaining({ path: `${h.hostDir}/nope`, exists: false, partitionDirCount: 0 })]);
  });
});

describe('probe.sh: output always parses', () => {
  it('escapes quotes, backslashes, tabs, control characters and invalid UTF-8 in log lines', async () => {
    const h = host({ brokerId: 7 });
    const nasty = `Received request api key PRODUCE with version 12 which is not enabled "quoted" back\\slash\ttab \u001b[31mred\u001b[0m ünï`;
    writeFileSync(join(h.logsDir, 'server.log'), Buffer.concat([Buffer.from(`org.apache.kafka.common.errors.InvalidRequestException: ${nasty} `), Buffer.from([0xff, 0xfe, 0x0a])]));
    const r = await probeOne(h, 7);
    expect(r.logs.unsupportedRequestVersion).toHaveLength(1);
    expect(r.logs.unsupportedRequestVersion[0]).toContain(nasty);
  });

  it('stays under 24,000 characters with 3,000 partition dirs and a noisy log', async () => {
    const partitions = Array.from({ length: 3000 }, (_, i) => ({ name: `t${i % 60}-${i}`, segments: i % 10 === 0 ? 0 : 1, segmentBytes: 1 }));
    for (let p = 0; p < 50; p++) partitions.push({ name: `__consumer_offsets-${p}`, segments: 2, segmentBytes: 1 });
    const h = host({ brokerId: 8, partitions });
    const D = h.logDirs[0]!;
    const CR = 'org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime';
    const lines: string[] = [log4j('07:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM)];
    for (let i = 0; i < 3000; i++) {
      lines.push(log4j('07:00:01,000', 'WARN', `[LogLoader partition=t1-${i}, dir=${D}] Found a corrupted index file corresponding to log file ${D}/t1-${i}/00000000000000000000.log due to Corrupt index found, index file ${D}/t1-${i}/00000000000000000000.index has non-zero size but the last offset is 1 which is less than the base offset 5}, recovering segment and rebuilding index files...`, LL));
      lines.push(log4j('07:00:01,000', 'INFO', `[LogLoader partition=t1-${i}, dir=${D}] Recovering unflushed segment 0. 1/1 recovered for t1-${i}.`, LL));
    }
    for (let p = 0; p < 50; p++) {
      lines.push(log4j('07:00:02,000', 'INFO', `[GroupCoordinator id=8] Scheduling loading of metadata from __consumer_offsets-${p} with epoch 9`, CR));
      if (p % 2) lines.push(log4j('07:00:03,000', 'INFO', `[GroupCoordinator id=8] Finished loading of metadata from __consumer_offsets-${p} with epoch 9 in 25ms where 1ms was spent in the scheduler. Loaded 812 records which total to 90211 bytes.`, CR));
    }
    writeFileSync(join(h.logsDir, 'server.log'), lines.join('\n') + '\n');
    running.push(h);
    h.start();

    const [outcome] = await probeHosts(executor, [{ brokerId: 8, address: h.hostDir }], { timeoutMs: 20_000 });
    expect(outcome?.execution?.stdout.length).toBeLessThan(24_000);
    expect(outcome?.execution?.truncated).toBe(false);
    expect(outcome?.ok).toBe(true);
    const r = (outcome as Extract<HostProbeOutcome, { ok: true }>).report;
    expect(r.logDirs[0]).toMatchObject({ partitionDirCount: 3050, partitionDirsWithoutSegmentsCount: 300 });
    expect(r.logDirs[0]!.partitionDirsWithoutSegments).toHaveLength(20);
    expect(r.consumerOffsets).toHaveLength(50);
    // Every even partition is still loading, every odd one finished, even after shortening.
    expect(r.consumerOffsets.filter((p) => p.loading).map((p) => p.partition)).toEqual(Array.from({ length: 25 }, (_, i) => i * 2));
    expect(r.logs.corruptIndex.length).toBeGreaterThan(0);
    expect(r.recoveryInProgress).toBe(true);
  });
});

describe('probeHosts: one bad host never spoils the others', () => {
  it('turns a missing host into host-unreachable and keeps the good report', async () => {
    const good = host({ brokerId: 1 });
    const outcomes = await probeHosts(
      executor,
      [
        { brokerId: 1, address: good.hostDir },
        { brokerId: 2, address: join(root, 'no-such-host') },
      ],
      { timeoutMs: 20_000 },
    );
    expect(outcomes.map((o) => [o.brokerId, o.ok])).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(outcomes[1]).toMatchObject({ ok: false, reason: 'unreachable' });
  });

  it('turns garbage output into malformed, and a hung script into failed', async () => {
    const h = host({ brokerId: 1 });
    const withBody = (body: string) => new LocalExecutor({ scripts: { probe: { ...HOST_SCRIPTS.probe, body: () => body } } });
    const [garbage] = await probeHosts(withBody('echo "{not json"'), [{ brokerId: 1, address: h.hostDir }], { timeoutMs: 5_000 });
    expect(garbage).toMatchObject({ ok: false, reason: 'malformed' });
    const [hung] = await probeHosts(withBody('sleep 30'), [{ brokerId: 1, address: h.hostDir }], { timeoutMs: 500 });
    expect(hung).toMatchObject({ ok: false, reason: 'failed' });
    expect(hung?.execution?.status).toBe('TimedOut');
  });

  it('reads rotated server logs in order, oldest first', async () => {
    const h = host({ brokerId: 1 });
    const D = h.logDirs[0]!;
    mkdirSync(join(h.logsDir), { recursive: true });
    writeFileSync(join(h.logsDir, 'server.log.2026-11-29-05'), log4j('05:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM) + '\n');
    writeFileSync(join(h.logsDir, 'server.log.2026-11-29-06'), log4j('06:00:00,000', 'INFO', `Recovering 1 logs from ${D} since no clean shutdown file was found`, LM) + '\n');
    appendFileSync(join(h.logsDir, 'server.log'), log4j('07:00:00,000', 'INFO', 'Loaded 1 logs in 7ms (unclean log dirs = ArrayBuffer(' + D + '))', LM) + '\n');
    // Make the modification order match the names.
    const { utimesSync } = await import('node:fs');
    utimesSync(join(h.logsDir, 'server.log.2026-11-29-05'), new Date('2026-11-29T05:59:00Z'), new Date('2026-11-29T05:59:00Z'));
    utimesSync(join(h.logsDir, 'server.log.2026-11-29-06'), new Date('2026-11-29T06:59:00Z'), new Date('2026-11-29T06:59:00Z'));
    const r = await probeOne(h, 1);
    expect(r.logFiles).toEqual([
      join(h.logsDir, 'server.log.2026-11-29-05'),
      join(h.logsDir, 'server.log.2026-11-29-06'),
      join(h.logsDir, 'server.log'),
    ]);
    expect(r.logs.uncleanShutdownRecovery).toHaveLength(1);
    expect(r.logLoading?.finishLine).toContain('Loaded 1 logs');
  });
});

describe('probe.sh: systemd', () => {
  it('reads TimeoutStopSec from a unit file where systemctl cannot answer (a sandbox host dir)', async () => {
    const h = host({ brokerId: 8 });
    const unitFile = join(h.hostDir, 'systemd', 'kafka.service');
    mkdirSync(join(h.hostDir, 'systemd'), { recursive: true });
    // The last TimeoutStopSec= wins, as in systemd; comments and other keys are ignored.
    writeFileSync(unitFile, '[Unit]\nDescription=kafka\n\n[Service]\n# TimeoutStopSec=999\nTimeoutStopSec=600\nExecStart=/opt/kafka/bin/kafka-server-start.sh\nTimeoutStopSec = 30s\n');
    const { parseProbeOutput } = await import('../../lib/hosts/probe-output.ts');
    const [res] = await executor.run([{ brokerId: 8, address: h.hostDir }], { script: 'probe', params: { config: h.configPath, unitFile }, timeoutMs: 20_000, comment: 't' });
    const r = parseProbeOutput(res!.stdout);
    expect(r.systemd).toMatchObject({ unit: 'kafka.service', timeoutStopSec: 30, timeoutStopRaw: '30s', activeState: null });
  });

  it('times the last controlled shutdown from server.log, whatever else the log holds in between', async () => {
    const h = host({ brokerId: 8 });
    const KS = 'kafka.server.KafkaServer';
    const lines = [
      log4j('05:00:00,000', 'INFO', '[KafkaServer id=8] shutting down', KS),
      log4j('05:00:30,000', 'INFO', '[KafkaServer id=8] shut down completed', KS),
      log4j('06:00:00,000', 'INFO', 'Loading logs.', LM),
      log4j('06:10:00,000', 'INFO', '[KafkaServer id=8] shutting down', KS),
      ...Array.from({ length: 50 }, (_, i) => log4j('06:10:01,000', 'INFO', `[ReplicaFetcherManager on broker 8] Removed fetcher for partitions t-${i}`, 'kafka.server.ReplicaFetcherManager')),
      log4j('06:11:35,250', 'INFO', '[KafkaServer id=8] shut down completed', KS),
    ];
    writeFileSync(join(h.logsDir, 'server.log'), lines.join('\n') + '\n');
    expect((await probeOne(h, 8)).lastShutdownSeconds).toBe(95.25);
  });

  it('reads the named unit with systemctl show when the broker is down', async () => {
    const h = host({ brokerId: 9 });
    const bin = join(root, 'fake-bin');
    mkdirSync(bin, { recursive: true });
    // (--config pins this host: other brokers may run on the test machine.)
    // A stand-in systemctl answering `systemctl show kafka.service -p ...` like systemd 252 does.
    writeFileSync(
      join(bin, 'systemctl'),
      [
        '#!/bin/bash',
        '[ "$1" = show ] && [ "$2" = kafka.service ] || exit 1',
        "printf '%s\\n' 'ActiveState=activating' 'TimeoutStopUSec=1min 30s' 'NRestarts=37' 'ExecMainStatus=9' 'ExecMainCode=2' " +
          `'ExecStart={ path=/opt/kafka/bin/kafka-server-start.sh ; argv[]=/opt/kafka/bin/kafka-server-start.sh ${h.configPath} ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }'`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    writeFileSync(
      join(bin, 'journalctl'),
      [
        '#!/bin/bash',
        '[ "$1" = -u ] && [ "$2" = kafka.service ] || exit 1',
        "echo '2026-11-29T07:00:01+00:00 kafka-1 kafka-server-start.sh[811]: Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space'",
        "echo '2026-11-29T07:00:02+00:00 kafka-1 systemd[1]: kafka.service: Main process exited, code=killed, status=9/KILL'",
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const oldPath = process.env.PATH;
    process.env.PATH = `${bin}:${oldPath}`;
    try {
      const { parseProbeOutput } = await import('../../lib/hosts/probe-output.ts');
      const [res] = await executor.run([{ brokerId: 9, address: h.hostDir }], { script: 'probe', params: { config: h.configPath, systemdUnit: 'kafka.service' }, timeoutMs: 20_000, comment: 't' });
      const r = parseProbeOutput(res!.stdout);
      expect(r.systemd).toEqual({
        unit: 'kafka.service',
        activeState: 'activating',
        timeoutStopSec: 90,
        timeoutStopRaw: '1min 30s',
        restarts: 37,
        lastExitStatus: 9,
        lastExitCode: 'killed',
        journalTail: [
          '2026-11-29T07:00:01+00:00 kafka-1 kafka-server-start.sh[811]: Exception in thread "main" java.lang.OutOfMemoryError: Java heap space',
          '2026-11-29T07:00:02+00:00 kafka-1 systemd[1]: kafka.service: Main process exited, code=killed, status=9/KILL',
        ],
      });
      expect(r.process.running).toBe(false);
      expect(r.process.configPath).toBe(h.configPath);
      expect(r.brokerId).toBe(9);
    } finally {
      process.env.PATH = oldPath;
    }
  });
});

describe('probe.sh: time budget', () => {
  it('stops waiting for a log scan that outlasts its time, says so, and still answers', async () => {
    const h = host({ brokerId: 11 });
    writeFileSync(join(h.logsDir, 'server.log'), log4j('07:00:00,000', 'INFO', 'Loading logs.', LM) + '\n');
    const bin = join(root, 'hung-grep-bin');
    mkdirSync(bin, { recursive: true });
    // The log scan's grep (the one given --no-group-separator) hangs, as on a stuck mount; other greps run.
    const grep = execFileSync('sh', ['-c', 'command -v grep'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'grep'), ['#!/bin/sh', 'case "$*" in *--no-group-separator*) exec sleep 30 ;; esac', `exec ${grep} "$@"`, ''].join('\n'), { mode: 0o755 });
    const oldPath = process.env.PATH;
    process.env.PATH = `${bin}:${oldPath}`;
    try {
      const { parseProbeOutput } = await import('../../lib/hosts/probe-output.ts');
      // Deadline 2 s: the scan starts in time and gets what is left (3-4 s), not the executor's 20 s.
      // (Not 1 s: bash's SECONDS counts whole clock seconds, so it can read 1 a few ms after the start.)
      const [res] = await executor.run([{ brokerId: 11, address: h.hostDir }], { script: 'probe', params: { config: h.configPath, scanDeadline: '2' }, timeoutMs: 20_000, comment: 't' });
      expect(res!.status).toBe('Success');
      const r = parseProbeOutput(res!.stdout);
      expect(r.warnings).toContain('time budget spent: log scan stopped at its deadline');
      expect(r.brokerId).toBe(11);
    } finally {
      process.env.PATH = oldPath;
    }
  });

  it('skips the log scans once its deadline has passed and still answers with valid JSON', async () => {
    const h = host({ brokerId: 10, partitions: [{ name: '__consumer_offsets-0', segments: 1 }] });
    writeFileSync(join(h.logsDir, 'server.log'), log4j('07:00:00,000', 'INFO', 'Loading logs.', LM) + '\n');
    const { parseProbeOutput } = await import('../../lib/hosts/probe-output.ts');
    const [res] = await executor.run([{ brokerId: 10, address: h.hostDir }], { script: 'probe', params: { config: h.configPath, scanDeadline: '0' }, timeoutMs: 20_000, comment: 't' });
    const r = parseProbeOutput(res!.stdout);
    expect(r.warnings).toEqual(['time budget spent: log scan skipped for lifecycle unclean recovery loadProgress corruptIndex indexAppend cleaner unsupported offsetsLoadErrors offsetsLoad shutdown']);
    expect(r.logLoading?.startLine).toBeNull();
    expect(r.consumerOffsets).toHaveLength(1);
  });
});
