// Host probe benchmark: `npx tsx bench/probe.ts`
// Builds a fabricated broker host with 5,000 partition dirs (plus 50
// __consumer_offsets partitions, one of them with 2,000 segments as in
// incident 2) and a 50 MB server.log, runs the real probe.sh through
// LocalExecutor, and prints wall time and output size. Targets: < 20 s and
// < 24,000 characters.

import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { LocalExecutor } from '../lib/hosts/local-executor.ts';
import { probeParams } from '../lib/hosts/probe-runner.ts';
import { parseProbeOutput } from '../lib/hosts/probe-output.ts';
import { createFakeHost, log4j, type FakePartition } from '../test/hosts/fake-host.ts';

const PARTITIONS = 5_000;
const LOG_BYTES = 50 * 1024 * 1024;

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'kr-probe-bench-'));
  const t0 = Date.now();
  const partitions: FakePartition[] = [];
  for (let i = 0; i < PARTITIONS; i++) partitions.push({ name: `topic${i % 100}-${i}`, segments: i % 500 === 0 ? 0 : 1, segmentBytes: 1 });
  for (let p = 0; p < 50; p++) partitions.push({ name: `__consumer_offsets-${p}`, segments: p === 7 ? 2_000 : 3, segmentBytes: 1 });
  const host = createFakeHost(join(root, 'broker-1'), { brokerId: 1, partitions });
  const D = host.logDirs[0]!;

  // 50 MB of broker chatter with the lines the probe looks for sprinkled in.
  const out = createWriteStream(join(host.logsDir, 'server.log'));
  let written = 0;
  let i = 0;
  const CR = 'org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime';
  const write = async (line: string) => {
    written += line.length + 1;
    if (!out.write(line + '\n')) await once(out, 'drain');
  };
  await write(log4j('00:00:00,000', 'INFO', `Loading logs from log dirs ArrayBuffer(${D})`, 'kafka.log.LogManager'));
  await write(log4j('00:00:00,001', 'INFO', `Recovering ${PARTITIONS} logs from ${D} since no clean shutdown file was found`, 'kafka.log.LogManager'));
  while (written < LOG_BYTES) {
    i++;
    if (i % 1000 === 0) {
      await write(log4j('01:00:00,000', 'WARN', `[LogLoader partition=topic1-${i}, dir=${D}] Found a corrupted index file corresponding to log file ${D}/topic1-${i}/00000000000000000000.log due to Corrupt index found, index file ${D}/topic1-${i}/00000000000000000000.index has non-zero size but the last offset is 1 which is less than the base offset 5}, recovering segment and rebuilding index files...`, 'kafka.log.LogLoader'));
    } else if (i % 500 === 0) {
      await write(log4j('01:00:00,000', 'INFO', `[LogLoader partition=topic1-${i}, dir=${D}] Recovering unflushed segment 0. 1/1 recovered for topic1-${i}.`, 'kafka.log.LogLoader'));
    } else if (i % 777 === 0) {
      await write(log4j('01:00:00,000', 'INFO', `[GroupCoordinator id=1] Scheduling loading of metadata from __consumer_offsets-${i % 50} with epoch ${i}`, CR));
    } else {
      await write(log4j('01:00:00,000', 'INFO', `[ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Truncating partition topic${i % 100}-${i % PARTITIONS} with TruncationState(offset=${i}, completed=true) due to leader epoch and offset EpochEndOffset(errorCode=0, partition=${i % 100}, leaderEpoch=3, endOffset=${i})`, 'kafka.server.ReplicaFetcherThread'));
    }
  }
  out.end();
  await once(out, 'finish');
  const built = Date.now() - t0;

  host.start();
  try {
    const executor = new LocalExecutor();
    const target = { brokerId: 1, address: host.hostDir };
    const runs: number[] = [];
    let last = null;
    for (let r = 0; r < 3; r++) {
      const t = Date.now();
      [last] = await executor.run([target], { script: 'probe', params: probeParams(executor, target), timeoutMs: 60_000, comment: 'bench' });
      runs.push(Date.now() - t);
    }
    const report = parseProbeOutput(last!.stdout, { truncated: last!.truncated });
    console.log(`fake host: ${PARTITIONS + 50} partition dirs, ${(written / 1024 / 1024).toFixed(1)} MB server.log (built in ${built} ms)`);
    console.log(`probe wall time: ${runs.map((ms) => `${ms} ms`).join(', ')} (target < 20,000 ms)`);
    console.log(`probe's own measure: ${report.probeDurationMs} ms`);
    console.log(`output: ${last!.stdout.length} characters, truncated=${last!.truncated} (target < 24,000)`);
    console.log(`parsed: ${report.logDirs[0]?.partitionDirCount} partition dirs, ${report.logDirs[0]?.partitionDirsWithoutSegmentsCount} without segments, ${report.consumerOffsets.length} __consumer_offsets partitions (p7: ${report.consumerOffsets.find((p) => p.partition === 7)?.segments} segments), ${report.logs.corruptIndex.length} corrupt-index lines kept, warnings: ${JSON.stringify(report.warnings)}`);
  } finally {
    host.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
