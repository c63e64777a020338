// Builds a fabricated broker host directory (the sandbox layout: config/,
// data/, logs/, libs/) and, on request, a long-running stand-in process whose
// command line looks like a broker's (`... kafka.Kafka <config>`), so the
// probe's process, fd and limit detection runs for real.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakePartition {
  name: string;
  /** Number of .log segments (0 = a partition dir without segments). */
  segments: number;
  /** Bytes per segment (sparse-free small files; keep it small). */
  segmentBytes?: number;
  /** Index of the log dir it lives in. */
  dir?: number;
}

export interface FakeHostSpec {
  brokerId: number;
  /** Absolute log dirs; default one dir under the host dir. */
  logDirs?: string[];
  partitions?: FakePartition[];
  /** Write .kafka_cleanshutdown in each log dir. */
  cleanShutdown?: boolean;
  serverLog?: string[];
  /** Older rotated server logs, oldest first: [suffix, lines]. */
  rotatedServerLogs?: [string, string[]][];
  cleanerLog?: string[];
  kafkaVersion?: string;
  /** Use broker.id (ZooKeeper era) instead of node.id. */
  zookeeperEra?: boolean;
}

export interface FakeHost {
  hostDir: string;
  configPath: string;
  logDirs: string[];
  logsDir: string;
  /** Starts the stand-in broker process; call stop() when done. */
  start(opts?: { relativeConfig?: boolean }): ChildProcess;
  stop(): void;
}

export function createFakeHost(hostDir: string, spec: FakeHostSpec): FakeHost {
  const configPath = join(hostDir, 'config', 'server.properties');
  const logsDir = join(hostDir, 'logs');
  const logDirs = spec.logDirs ?? [join(hostDir, 'data', 'kafka-logs')];
  mkdirSync(join(hostDir, 'config'), { recursive: true });
  mkdirSync(logsDir, { recursive: true });
  mkdirSync(join(hostDir, 'libs'), { recursive: true });
  for (const d of logDirs) mkdirSync(d, { recursive: true });

  const idKey = spec.zookeeperEra ? 'broker.id' : 'node.id';
  writeFileSync(
    configPath,
    [
      '# fabricated broker config',
      `${idKey}=${spec.brokerId}`,
      spec.zookeeperEra ? 'zookeeper.connect=127.0.0.1:2181' : 'process.roles=broker',
      `log.dirs = ${logDirs.join(',')}`,
      'num.partitions=3',
      '',
    ].join('\n'),
  );
  writeFileSync(join(hostDir, 'libs', `kafka_2.13-${spec.kafkaVersion ?? '3.6.2'}.jar`), '');
  writeFileSync(join(hostDir, 'libs', `kafka-clients-${spec.kafkaVersion ?? '3.6.2'}.jar`), '');

  for (const d of logDirs) {
    writeFileSync(join(d, 'meta.properties'), `version=1\n${idKey}=${spec.brokerId}\n`);
    if (spec.cleanShutdown) writeFileSync(join(d, '.kafka_cleanshutdown'), '');
  }
  for (const p of spec.partitions ?? []) {
    const dir = join(logDirs[p.dir ?? 0]!, p.name);
    mkdirSync(dir, { recursive: true });
    const bytes = Buffer.alloc(p.segmentBytes ?? 10, 'x');
    for (let s = 0; s < p.segments; s++) {
      const base = String(s * 1000).padStart(20, '0');
      writeFileSync(join(dir, `${base}.log`), bytes);
      writeFileSync(join(dir, `${base}.index`), '');
      writeFileSync(join(dir, `${base}.timeindex`), '');
    }
    writeFileSync(join(dir, 'partition.metadata'), 'version: 0\n');
  }
  for (const [suffix, lines] of spec.rotatedServerLogs ?? []) {
    writeFileSync(join(logsDir, `server.log.${suffix}`), lines.map((l) => l + '\n').join(''));
  }
  if (spec.serverLog) writeFileSync(join(logsDir, 'server.log'), spec.serverLog.map((l) => l + '\n').join(''));
  if (spec.cleanerLog) writeFileSync(join(logsDir, 'log-cleaner.log'), spec.cleanerLog.map((l) => l + '\n').join(''));

  let child: ChildProcess | null = null;
  return {
    hostDir,
    configPath,
    logDirs,
    logsDir,
    start(opts: { relativeConfig?: boolean } = {}) {
      // bash stays resident (a compound command is not exec'd away) with a
      // broker-like argv: $0.. are "java -Dkafka.logs.dir=... -cp ... kafka.Kafka <config>".
      // relativeConfig: started in the host dir with "config/server.properties", as the sandbox starts Kafka.
      child = spawn(
        'bash',
        ['-c', 'sleep 600; :', 'java', '-Xmx1G', `-Dkafka.logs.dir=${logsDir}`, '-cp', `${join(hostDir, 'libs')}/*`, 'kafka.Kafka', opts.relativeConfig ? 'config/server.properties' : configPath],
        { detached: true, stdio: 'ignore', ...(opts.relativeConfig ? { cwd: hostDir } : {}) },
      );
      return child;
    },
    stop() {
      if (child?.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      child = null;
    },
  };
}

/** A log4j line as Kafka prints it: "[date] LEVEL message (logger)". */
export function log4j(time: string, level: string, message: string, logger: string): string {
  return `[2026-11-29 ${time}] ${level} ${message} (${logger})`;
}
