// Process and log helpers of the sandbox's lifecycle: liveness, ports, and
// reading only what a process wrote after a mark.
import { stat, readFile, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { NodeLayout } from './layout.ts';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ port, host: '127.0.0.1' });
    sock.setTimeout(1000);
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
    sock.once('timeout', () => {
      sock.destroy();
      resolve(false);
    });
  });
}

/** Where a log file ends now, so that only what a new process writes is read. */
export interface LogMark {
  ino: number | null;
  size: number;
}

export async function markLog(file: string): Promise<LogMark> {
  try {
    const st = await stat(file);
    return { ino: st.ino, size: st.size };
  } catch {
    return { ino: null, size: 0 };
  }
}

/** What was written after the mark; log4j rolls server.log over at start, and then the whole new file counts. */
export async function readSince(file: string, mark: LogMark): Promise<string> {
  try {
    const st = await stat(file);
    const offset = st.ino === mark.ino && st.size >= mark.size ? mark.size : 0;
    return (await readFile(file)).subarray(offset).toString('utf8');
  } catch {
    return '';
  }
}

export async function tail(file: string, lines = 25): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log yet)';
  }
}

/** Whether Metadata (from any live broker) lists broker `id`; false when no broker answers at once. */
/** Whether the cluster's metadata lists broker `id`; null when no broker in `bootstrap` answered (unknown, not "gone"). */
export async function brokerListed(bootstrap: string, id: number): Promise<boolean | null> {
  const admin = new Kafka({ clientId: 'kafka-responder-sandbox', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING, connectionTimeout: 1000, requestTimeout: 5000, retry: { retries: 0 } }).admin();
  try {
    await admin.connect();
    return (await admin.describeCluster()).brokers.some((b) => b.nodeId === id);
  } catch {
    return null;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

// ---------------------------------------------------------------- a node's pid and service script

async function readPid(node: NodeLayout): Promise<number | null> {
  try {
    const pid = Number((await readFile(node.pidFile, 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

const ZOOKEEPER_MAIN = 'org.apache.zookeeper.server.quorum.QuorumPeerMain';
export const mainClass = (node: NodeLayout) => (node.role === 'zookeeper' ? ZOOKEEPER_MAIN : 'kafka.Kafka');

/** The pid is ours only if that process still runs our config (pids get reused). */
export async function ownedPid(node: NodeLayout): Promise<number | null> {
  const pid = await readPid(node);
  if (pid === null) return null;
  try {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    return cmdline.includes(node.configFile) && cmdline.includes(mainClass(node)) ? pid : null;
  } catch {
    return null;
  }
}

const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * A Kafka node's "service" on its host directory (broker or controller): what
 * lib/hosts/service-control.sh runs to start it (as systemd would run ExecStart).
 * It records its pid where the sandbox looks for it, then becomes the JVM.
 */
export async function writeServiceScript(node: NodeLayout, javaArgs: string[]): Promise<void> {
  const file = join(node.hostDir, SERVICE_SCRIPT);
  const body = ['#!/usr/bin/env bash', `cd ${shellQuote(node.hostDir)} || exit 1`, `echo $$ > ${shellQuote(node.pidFile)}`, `exec java ${javaArgs.map(shellQuote).join(' ')}`, ''].join('\n');
  await writeFile(file, body, { mode: 0o755 });
}

/** Written into each Kafka node's host directory; its presence tells service-control.sh it is on a sandbox host. */
export const SERVICE_SCRIPT = 'sandbox-service.sh';
/** Test knob: a number of seconds in this file (host directory) delays the broker's next graceful stop. */
export const SLOW_STOP_FILE = 'slow-stop-seconds';
