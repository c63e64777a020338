// Process and log helpers of the sandbox's lifecycle: liveness, ports, and
// reading only what a process wrote after a mark.
import { stat, readFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';

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
