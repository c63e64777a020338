// Records against the legacy JSON probe on generated hosts: the probe.test.ts
// incidents, every log line of log-patterns.test.ts, a 3,000-partition host
// with a noisy log, and a 5 MB log with rotations (see probe-equivalence.ts).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createFakeHost, log4j, type FakeHost, type FakeHostSpec } from './fake-host.ts';
import { compareProbes, expectEquivalent } from './probe-equivalence.ts';
import { CASES } from './log-pattern-cases.ts';
import { healthyCluster } from '../diagnose/fixtures.ts';
import { diskTmpdir } from '../helpers/scratch.ts';

// On a disk: log dirs on tmpfs would add a finding of their own.
const root = mkdtempSync(join(diskTmpdir(), 'kr-probe-equivalence-'));
const running: FakeHost[] = [];
let seq = 0;
afterEach(() => {
  for (const h of running.splice(0)) h.stop();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function host(spec: FakeHostSpec, start = true): FakeHost {
  const h = createFakeHost(join(root, `host-${++seq}`), spec);
  if (start) {
    running.push(h);
    h.start();
  }
  return h;
}
const LM = 'kafka.log.LogManager';
const LL = 'kafka.log.LogLoader';
const CR = 'org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime';
const compare = (h: FakeHost, brokerId: number) => compareProbes({ brokerId, address: h.hostDir }, healthyCluster());

describe('probe records give what the JSON probe gave', () => {
  it('on a broker restarted after kill -9, still recovering, with offsets loading, a dead cleaner and unsupported requests', async () => {
    const h = host({
      brokerId: 2,
      partitions: [{ name: 'A-34', segments: 3 }, { name: 'A-35', segments: 0 }, { name: '__consumer_offsets-13', segments: 60 }, { name: '__consumer_offsets-7', segments: 2 }],
      cleanerLog: ['[2026-11-29 06:00:00,000] ERROR [kafka-log-cleaner-thread-0]: Error due to (kafka.log.LogCleaner)', 'java.lang.IllegalStateException: boom'],
    });
    const D = h.logDirs[0]!;
    writeFileSync(
      join(h.logsDir, 'server.log'),
      [
        log4j('06:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM),
        log4j('06:00:01,000', 'INFO', '[KafkaServer id=2] shutting down', 'kafka.server.KafkaServer'),
        log4j('06:00:09,000', 'INFO', '[KafkaServer id=2] shut down completed', 'kafka.server.KafkaServer'),
        log4j('07:00:01,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM),
        log4j('07:00:01,001', 'INFO', `Recovering 2 logs from ${D} since no clean shutdown file was found`, LM),
        log4j('07:00:01,200', 'WARN', `[LogLoader partition=A-34, dir=${D}] Found a corrupted index file corresponding to log file ${D}/A-34/00000000000000002000.log due to Corrupt index found`, LL),
        log4j('07:00:01,300', 'INFO', `[LogLoader partition=A-34, dir=${D}] Recovering unflushed segment 2000. 1/1 recovered for A-34.`, LL),
        log4j('07:00:01,400', 'INFO', `Completed load of Log(dir=${D}/A-35) with 1 segments in 3ms (1/2 completed in ${D})`, LM),
        log4j('07:00:02,000', 'INFO', '[GroupCoordinator id=2] Scheduling loading of metadata from __consumer_offsets-13 with epoch 4', CR),
        log4j('07:00:02,000', 'INFO', '[GroupCoordinator id=2] Scheduling loading of metadata from __consumer_offsets-7 with epoch 4', CR),
        log4j('07:00:02,500', 'INFO', '[GroupCoordinator id=2] Finished loading of metadata from __consumer_offsets-7 with epoch 4 in 25ms', CR),
        log4j('07:00:03,000', 'ERROR', '[kafka-log-cleaner-thread-0]: Error due to', 'kafka.log.LogCleaner'),
        'java.lang.IllegalStateException: This log contains a message larger than maximum allowable size',
        log4j('07:00:04,000', 'WARN', 'Received request api key 3 with version 13 which is not enabled "quoted" back\\slash\ttab', 'kafka.network.Processor'),
      ]
        .map((l) => l + '\n')
        .join(''),
    );
    const c = await compare(h, 2);
    expect(c.legacyShortened).toBe(false);
    expect(c.recordFindings.map((f) => f.kind).sort()).toEqual(
      ['consumer-offsets-oversized', 'coordinator-loading', 'corrupt-index', 'log-cleaner-stalled', 'missing-segments', 'unclean-shutdown-recovery', 'unsupported-request-version'].sort(),
    );
    expectEquivalent(c);
  });

  it('on a stopped broker whose log holds every line of every Kafka version the patterns know, with rotated logs', async () => {
    const lines = CASES.map(([, line]) => line);
    const h = host({ brokerId: 3, partitions: [{ name: '__consumer_offsets-0', segments: 1 }], rotatedServerLogs: [['1', lines.slice(0, 20)], ['2', lines.slice(20, 40)]], serverLog: lines.slice(40), cleanerLog: lines.slice(0, 30) }, false);
    expectEquivalent(await compare(h, 3));
  });

  it('on a 3,000-partition host with a noisy log (both shorten to fit 24,000 characters)', async () => {
    const partitions = Array.from({ length: 3000 }, (_, i) => ({ name: `t${i % 60}-${i}`, segments: i % 10 === 0 ? 0 : 1, segmentBytes: 1 }));
    for (let p = 0; p < 50; p++) partitions.push({ name: `__consumer_offsets-${p}`, segments: 2, segmentBytes: 1 });
    const h = host({ brokerId: 8, partitions });
    const D = h.logDirs[0]!;
    const lines = [log4j('07:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM)];
    for (let i = 0; i < 3000; i++) {
      lines.push(log4j('07:00:01,000', 'WARN', `[LogLoader partition=t1-${i}, dir=${D}] Found a corrupted index file corresponding to log file ${D}/t1-${i}/00000000000000000000.log due to Corrupt index found, index file ${D}/t1-${i}/00000000000000000000.index has non-zero size`, LL));
      lines.push(log4j('07:00:01,000', 'INFO', `[LogLoader partition=t1-${i}, dir=${D}] Recovering unflushed segment 0. 1/1 recovered for t1-${i}.`, LL));
    }
    for (let p = 0; p < 50; p++) {
      lines.push(log4j('07:00:02,000', 'INFO', `[GroupCoordinator id=8] Scheduling loading of metadata from __consumer_offsets-${p} with epoch 9`, CR));
      if (p % 2) lines.push(log4j('07:00:03,000', 'INFO', `[GroupCoordinator id=8] Finished loading of metadata from __consumer_offsets-${p} with epoch 9 in 25ms`, CR));
    }
    writeFileSync(join(h.logsDir, 'server.log'), lines.join('\n') + '\n');
    const c = await compare(h, 8);
    expectEquivalent(c);
    expect(c.recordFindings.map((f) => f.kind).sort()).toEqual(['corrupt-index', 'missing-segments', 'unclean-shutdown-recovery']);
  });

  it('on a 5 MB log (and two rotations) with signals among the noise', async () => {
    const h = host({ brokerId: 5, partitions: [{ name: 'orders-0', segments: 1 }, { name: '__consumer_offsets-3', segments: 1 }] });
    const D = h.logDirs[0]!;
    const noise = (i: number) => log4j('08:00:00,000', 'INFO', `[ReplicaFetcher replicaId=5, leaderId=1, fetcherId=0] Truncating partition orders-${i % 64} with TruncationState(offset=${i}, completed=true) due to leader epoch and offset EpochEndOffset(errorCode=0, partition=orders-${i % 64}, leaderEpoch=${i})`, 'kafka.server.ReplicaFetcherThread');
    const signal = (i: number) =>
      [
        log4j('08:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM),
        log4j('08:00:00,000', 'INFO', `Loaded ${i} logs in 12ms.`, LM),
        log4j('08:00:00,000', 'ERROR', `[kafka-log-cleaner-thread-${i % 3}]: Error due to`, 'kafka.log.LogCleaner'),
        log4j('08:00:00,000', 'INFO', `[GroupCoordinator id=5] Scheduling loading of metadata from __consumer_offsets-3 with epoch ${i}`, CR),
        log4j('08:00:00,000', 'INFO', `[GroupCoordinator id=5] Finished loading of metadata from __consumer_offsets-3 with epoch ${i} in 9ms`, CR),
        log4j('08:00:00,000', 'INFO', `[BrokerServer id=5] shutting down`, 'kafka.server.BrokerServer'),
        log4j('08:00:00,000', 'WARN', `Found a corrupted index file corresponding to log file ${D}/orders-0/00.log`, LL),
      ][i % 7]!;
    const chunk = (from: number, bytes: number) => {
      const out: string[] = [];
      let n = 0;
      for (let i = from; n < bytes; i++) {
        const l = i % 997 === 0 ? signal(i / 997) : noise(i);
        out.push(l);
        n += l.length + 1;
      }
      return out.join('\n') + '\n';
    };
    writeFileSync(join(h.logsDir, 'server.log.2'), chunk(0, 1_000_000));
    writeFileSync(join(h.logsDir, 'server.log.1'), chunk(10_000, 1_000_000));
    writeFileSync(join(h.logsDir, 'server.log'), chunk(20_000, 5_000_000));
    const c = await compare(h, 5);
    expect((c.records.logs as { bytesRead: number }).bytesRead).toBeGreaterThan(7_000_000);
    expectEquivalent(c);
  });

  describe('past the 8 MiB first window', () => {
    const filler = (make: (i: number) => string, bytes: number) => {
      const out: string[] = [];
      for (let i = 0, n = 0; n < bytes; i++) {
        const l = make(i);
        out.push(l);
        n += l.length + 1;
      }
      return out;
    };

    it('a broker still recovering, its start 9 MB back: the scan reaches back to it, as the JSON probe did', async () => {
      const h = host({ brokerId: 6, partitions: [{ name: 'big-0', segments: 1 }] });
      const D = h.logDirs[0]!;
      const lines = [
        log4j('07:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM),
        log4j('07:00:00,001', 'INFO', `Recovering 90000 logs from ${D} since no clean shutdown file was found`, LM),
        ...filler((i) => log4j('07:00:01,000', 'INFO', `[LogLoader partition=big-${i}, dir=${D}] Recovering unflushed segment 0. 0/1 recovered for big-${i}.`, LL), 9_000_000),
      ];
      writeFileSync(join(h.logsDir, 'server.log'), lines.join('\n') + '\n');
      const c = await compare(h, 6);
      expect((c.records.logs as { bytesRead: number }).bytesRead).toBeGreaterThan(9_000_000);
      expect(c.recordFindings.find((f) => f.kind === 'unclean-shutdown-recovery')?.severity).toBe('error');
      expectEquivalent(c);
    });

    it('a broker that has run for 9 MB of logs since its start: only the newest 8 MiB are read, the findings stay', async () => {
      const h = host({ brokerId: 7, partitions: [{ name: 'orders-0', segments: 1 }] });
      const D = h.logDirs[0]!;
      const lines = [
        log4j('07:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, LM),
        log4j('07:00:01,000', 'INFO', 'Loaded 1 logs in 12ms.', LM),
        ...filler((i) => log4j('08:00:00,000', 'INFO', `[ReplicaFetcher replicaId=7, leaderId=1, fetcherId=0] Truncating partition orders-${i % 64} to offset ${i}`, 'kafka.server.ReplicaFetcherThread'), 9_000_000),
        log4j('09:00:00,000', 'ERROR', '[kafka-log-cleaner-thread-0]: Error due to', 'kafka.log.LogCleaner'),
        'java.lang.IllegalStateException: boom',
      ];
      writeFileSync(join(h.logsDir, 'server.log'), lines.join('\n') + '\n');
      const c = await compare(h, 7);
      expect((c.records.logs as { bytesRead: number }).bytesRead).toBe(8 * 1024 * 1024);
      expect(c.recordFindings.map((f) => f.kind)).toEqual(['log-cleaner-stalled']);
      expect(c.recordFindings).toEqual(c.legacyFindings);
    });
  });
});
