// Detector speed and memory on synthetic clusters of 10k, 100k and 200k
// partitions (target: 200k in under 1 s and 300 MB).
//
//   npx tsx bench/detectors.ts [sizes...]      e.g. npx tsx bench/detectors.ts 200000
//
// Each size runs in its own child process so one size's heap does not
// inflate the next. In the child:
//   - the snapshot is built first (not timed), then a full GC (--expose-gc);
//   - "detect" = detect(snapshot, probes), all detectors; first run (cold JIT)
//     and the median of 5 runs are printed; "can-restart" = assessRestart;
//   - "peak RSS" is the whole process's resident memory at its highest
//     during the detector runs, sampled every millisecond by a worker thread
//     (the main thread is busy in the detectors) — it includes the snapshot
//     itself, the node runtime and the findings;
//   - "+heap" is how much the detectors add on top of the snapshot: peak
//     heapUsed seen between runs minus heapUsed after GC before them (an
//     under-estimate of garbage churn, an over-estimate of what is retained).
// The synthetic cluster: 12 brokers, RF 3 topics of 100 partitions plus 2 %
// RF 1 topics, broker 7 dead (its RF 1 partitions offline, its replicas out of
// every ISR), 1 % partitions with an ISR of one, __consumer_offsets with 50
// partitions, 5,000 groups of which 2 % answer COORDINATOR_LOAD_IN_PROGRESS,
// and a host probe per broker with a few problems.

import { fork } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { ClusterSnapshot, PartitionState, TopicState } from '../lib/kafka/types.ts';
import type { HostProbeOutcome, ProbeReport } from '../lib/hosts/types.ts';
import { detect } from '../lib/diagnose/detect.ts';
import { assessRestart } from '../lib/diagnose/can-restart.ts';
import { offsetsPartitionFor } from '../lib/kafka/group-partition.ts';

const DEFAULT_SIZES = [10_000, 100_000, 200_000];
const BROKERS = 12;
const DEAD = 7;
const PARTITIONS_PER_TOPIC = 100;

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function syntheticSnapshot(partitions: number): ClusterSnapshot {
  const rand = mulberry32(42);
  const topics: TopicState[] = [];
  const live = [...Array(BROKERS).keys()].map((i) => i + 1).filter((b) => b !== DEAD);
  const topicCount = Math.ceil(partitions / PARTITIONS_PER_TOPIC);
  for (let t = 0; t < topicCount; t++) {
    const rf = rand() < 0.02 ? 1 : 3;
    const parts: PartitionState[] = [];
    for (let p = 0; p < PARTITIONS_PER_TOPIC && t * PARTITIONS_PER_TOPIC + p < partitions; p++) {
      const first = 1 + Math.floor(rand() * BROKERS);
      const replicas = Array.from({ length: rf }, (_, i) => 1 + ((first - 1 + i) % BROKERS));
      let isr = replicas.filter((r) => r !== DEAD);
      if (isr.length > 1 && rand() < 0.01) isr = isr.slice(0, 1);
      const leader = isr[0] ?? -1;
      parts.push({ partition: p, leader, replicas, isr, offlineReplicas: replicas.includes(DEAD) ? [DEAD] : [] });
    }
    topics.push({
      name: `topic-${String(t).padStart(5, '0')}`,
      internal: false,
      partitions: parts,
      config: { minInsyncReplicas: rf === 1 ? 1 : 2, uncleanLeaderElectionEnable: false, cleanupPolicy: 'delete', segmentBytes: 1073741824 },
    });
  }
  const offsets: PartitionState[] = Array.from({ length: 50 }, (_, p) => {
    const replicas = [1 + (p % live.length), 1 + ((p + 1) % live.length), 1 + ((p + 2) % live.length)].map((i) => live[i - 1]!);
    return { partition: p, leader: replicas[0]!, replicas, isr: replicas, offlineReplicas: [] };
  });
  topics.push({ name: '__consumer_offsets', internal: true, partitions: offsets, config: { minInsyncReplicas: 2, uncleanLeaderElectionEnable: false, cleanupPolicy: 'compact', segmentBytes: 104857600 } });
  const groups = Array.from({ length: 5000 }, (_, i) => {
    const groupId = `group-${i}`;
    const loading = rand() < 0.02;
    return {
      groupId,
      state: loading ? 'Unknown' : 'Stable',
      protocolType: 'consumer',
      coordinator: null,
      offsetsPartition: offsetsPartitionFor(groupId, 50),
      error: loading ? { code: 14, type: 'COORDINATOR_LOAD_IN_PROGRESS', message: 'loading' } : null,
    };
  });
  return {
    takenAt: new Date(0).toISOString(),
    clusterId: 'bench',
    controllerId: 1,
    brokers: live.map((id) => ({ id, host: `b${id}`, port: 9092, rack: null })),
    topics,
    groups,
    offsetsTopicPartitions: 50,
    unreachableBrokers: [],
    errors: [],
    partial: false,
  };
}

function syntheticProbes(): HostProbeOutcome[] {
  const out: HostProbeOutcome[] = [];
  for (let b = 1; b <= BROKERS; b++) {
    if (b === DEAD) {
      out.push({ brokerId: b, ok: false, reason: 'unreachable', message: 'no answer', execution: null });
      continue;
    }
    const report: ProbeReport = {
      hostname: `b${b}`,
      brokerId: b,
      collectedAt: new Date(0).toISOString(),
      probeDurationMs: 300,
      kafkaVersion: '4.1.1',
      process: { running: true, pid: 1000 + b, startedAt: null, configPath: null, logsDir: null },
      logDirs: [{ path: '/data/kafka', exists: true, cleanShutdownMarker: false, fsType: 'xfs', mountPoint: '/data', underVarLog: false, onTmpfs: false, diskUsedPercent: b === 3 ? 91 : 50, diskAvailableBytes: 1e11, inodeUsedPercent: 5, partitionDirCount: 5000, partitionDirsWithoutSegments: [], partitionDirsWithoutSegmentsCount: 0 }],
      recoveryInProgress: false,
      logs: { uncleanShutdownRecovery: [], recoveryProgress: [], corruptIndex: b === 5 ? ['Found a corrupted index file corresponding to log file /data/kafka/t-1/0.log'] : [], indexAppendFatal: [], logCleanerFailure: [], uncleanablePartitions: [], unsupportedRequestVersion: [], consumerOffsetsLoadErrors: [] },
      consumerOffsets: Array.from({ length: 12 }, (_, i) => ({ partition: i * 4, logDir: '/data/kafka', segments: b === 2 && i === 0 ? 2100 : 3, bytes: 3e8, lastLoadStart: null, lastLoadFinish: null, loading: false })),
      limits: { openFds: 30000, maxFds: 100000, mapCount: 20000, maxMapCount: 262144 },
      systemd: { unit: 'kafka.service', activeState: 'active', timeoutStopSec: 90, restarts: 0, lastExitStatus: 0, lastExitCode: 'exited' },
      warnings: [],
    };
    out.push({ brokerId: b, ok: true, report, execution: { target: { brokerId: b, address: `i-${b}` }, status: 'Success', outcome: 'completed', exitCode: 0, stdout: '', stderr: '', truncated: false, commandId: null, durationMs: 300 } });
  }
  return out;
}

const MB = 1024 * 1024;

function startRssSampler(): { peak: () => number; stop: () => Promise<number> } {
  const shared = new SharedArrayBuffer(8);
  const peakView = new Float64Array(shared);
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const v = new Float64Array(workerData);
     setInterval(() => { const r = process.memoryUsage.rss(); if (r > v[0]) v[0] = r; }, 1);`,
    { eval: true, workerData: shared },
  );
  return {
    peak: () => peakView[0]!,
    stop: async () => {
      await worker.terminate();
      return peakView[0]!;
    },
  };
}

async function child(size: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const snapshot = syntheticSnapshot(size);
  const probes = syntheticProbes();
  gc();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage().rss;
  const sampler = startRssSampler();
  await new Promise((r) => setTimeout(r, 20));
  let peakHeap = heapBefore;
  const times: number[] = [];
  let findings = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const f = detect(snapshot, probes);
    times.push(performance.now() - t0);
    findings = f.length;
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }
  const r0 = performance.now();
  const verdict = assessRestart(snapshot, 1).verdict;
  const restartMs = performance.now() - r0;
  await new Promise((r) => setTimeout(r, 20));
  const peakRss = await sampler.stop();
  const sorted = [...times].sort((a, b) => a - b);
  const row = {
    partitions: size,
    findings,
    firstMs: times[0]!,
    medianMs: sorted[2]!,
    canRestartMs: restartMs,
    verdict,
    snapshotHeapMb: heapBefore / MB,
    rssBeforeMb: rssBefore / MB,
    peakRssMb: peakRss / MB,
    detectHeapMb: (peakHeap - heapBefore) / MB,
  };
  process.send?.(row);
}

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0);
  console.log('detector benchmark: detect() = every detector over (snapshot, 12 host probes); see header of bench/detectors.ts for what is measured');
  console.log('partitions  findings  first ms  median ms  can-restart ms  peak RSS MB  (RSS before)  snapshot heap MB  +heap MB');
  for (const size of sizes.length ? sizes : DEFAULT_SIZES) {
    const row = await new Promise<Record<string, number | string>>((resolve, reject) => {
      const c = fork(fileURLToPath(import.meta.url), ['--child', String(size)], { execArgv: [...process.execArgv, '--expose-gc'] });
      c.on('message', (m) => resolve(m as Record<string, number | string>));
      c.on('exit', (code) => (code ? reject(new Error(`child for ${size} exited with ${code}`)) : undefined));
    });
    const n = (k: string, w: number, d = 0) => Number(row[k]).toFixed(d).padStart(w);
    console.log(
      `${n('partitions', 10)}  ${n('findings', 8)}  ${n('firstMs', 8, 1)}  ${n('medianMs', 9, 1)}  ${n('canRestartMs', 14, 1)}  ${n('peakRssMb', 11, 1)}  ${`(${n('rssBeforeMb', 0, 1)})`.padStart(12)}  ${n('snapshotHeapMb', 16, 1)}  ${n('detectHeapMb', 8, 1)}`,
    );
  }
}

if (process.argv[2] === '--child') {
  child(Number(process.argv[3])).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
} else {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
