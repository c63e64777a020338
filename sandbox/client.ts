// Small kafkajs helpers the scenarios drive the cluster with. Kafka's own CLI
// tools stay the oracle in tests; these only set things up quickly.
import { Kafka, logLevel, type Admin, type ITopicConfig } from 'kafkajs';

export function kafkaClient(bootstrap: string, clientId = 'kafka-responder-sandbox'): Kafka {
  return new Kafka({
    clientId,
    brokers: bootstrap.split(','),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 15_000,
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2000 },
  });
}

export async function withAdmin<T>(bootstrap: string, fn: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafkaClient(bootstrap).admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    await sleep(300);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${lastError instanceof Error ? ` (last error: ${lastError.message})` : ''}`);
}

export interface PartitionView {
  partitionId: number;
  leader: number;
  replicas: number[];
  isr: number[];
}

export async function partitions(admin: Admin, topic: string): Promise<PartitionView[]> {
  const md = await admin.fetchTopicMetadata({ topics: [topic] });
  return (md.topics[0]?.partitions ?? []).map((p) => ({ partitionId: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr }));
}


export async function createTopic(
  admin: Admin,
  topic: string,
  opts: { assignment: number[][]; configs?: Record<string, string> },
): Promise<void> {
  const spec: ITopicConfig = {
    topic,
    replicaAssignment: opts.assignment.map((replicas, partition) => ({ partition, replicas })),
    configEntries: Object.entries(opts.configs ?? {}).map(([name, value]) => ({ name, value })),
  };
  // Not kafkajs's waitForLeaders: it retries only LEADER_NOT_AVAILABLE and throws on the
  // UNKNOWN_TOPIC_OR_PARTITION a broker answers until the new topic's metadata reaches it.
  await admin.createTopics({ topics: [spec], waitForLeaders: false, timeout: 30_000 });
  await waitFor(`leaders for ${topic}`, async () => {
    const ps = await partitions(admin, topic);
    return ps.length === opts.assignment.length && ps.every((p) => p.leader >= 0 && p.isr.length === p.replicas.length);
  });
}

/** Produce `count` small messages to one partition; returns how many were acknowledged. */
/** `valueBytes`: pad each value to about this size, to make partitions that take time to copy. */
export async function produce(bootstrap: string, topic: string, partition: number, count: number, acks: -1 | 1 = 1, from = 0, valueBytes = 0): Promise<number> {
  const pad = valueBytes > 0 ? 'x'.repeat(valueBytes) : '';
  const producer = kafkaClient(bootstrap, 'kafka-responder-sandbox-producer').producer({ allowAutoTopicCreation: false, retry: { retries: 3 } });
  await producer.connect();
  try {
    const batch = valueBytes > 0 ? Math.max(1, Math.min(500, Math.floor(400_000 / valueBytes))) : 500;
    for (let i = 0; i < count; i += batch) {
      const n = Math.min(batch, count - i);
      await producer.send({
        topic,
        acks,
        messages: Array.from({ length: n }, (_, k) => ({ partition, key: `k${from + i + k}`, value: `message ${from + i + k} of ${topic}-${partition}${pad}` })),
      });
    }
    return count;
  } finally {
    await producer.disconnect();
  }
}

/** Java's String.hashCode: UTF-16 code units, 32-bit overflow. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's partitionFor(groupId): Utils.abs(hash) % partitions, where abs(MIN_VALUE) = 0. */
export function offsetsPartitionFor(groupId: string, offsetsPartitions: number): number {
  const h = javaStringHashCode(groupId);
  return (h === -2147483648 ? 0 : Math.abs(h)) % offsetsPartitions;
}

/** Runs one of the sandbox's Kafka CLI wrappers; rejects with its stderr on a non-zero exit. */
export async function kafkaTool(binDir: string, script: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    execFile(`${binDir}/${script}`, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${script} ${args.join(' ')} failed: ${(stderr || err.message).trim()}`));
      else resolve(stdout);
    });
  });
}

export async function describeTopic(binDir: string, bootstrap: string, topic: string): Promise<DescribedPartition[]> {
  return parseTopicDescribe(await kafkaTool(binDir, 'kafka-topics.sh', ['--bootstrap-server', bootstrap, '--describe', '--topic', topic]));
}

// ---------------------------------------------------------------- kafka-topics.sh output (the tests' oracle)

export interface DescribedPartition {
  topic: string;
  partition: number;
  /** -1 for "none". */
  leader: number;
  replicas: number[];
  isr: number[];
  adding: number[];
  removing: number[];
  /** Eligible leader replicas (KIP-966); null when the version does not print them. */
  elr: number[] | null;
  lastKnownElr: number[] | null;
}

/** `kafka-topics.sh --describe` partition lines (tab-separated "Key: value" fields). */
export function parseTopicDescribe(text: string): DescribedPartition[] {
  const out: DescribedPartition[] = [];
  for (const line of text.split('\n')) {
    if (!/^\s+Topic: /.test(line) && !/\tPartition: /.test(line)) continue;
    const fields = new Map<string, string>();
    for (const part of line.split('\t')) {
      const m = /^\s*([A-Za-z ]+):\s?(.*)$/.exec(part);
      if (m) fields.set(m[1]!.trim(), m[2]!.trim());
    }
    const topic = fields.get('Topic');
    const partition = Number(fields.get('Partition'));
    if (!topic || !Number.isInteger(partition) || !fields.has('Leader')) continue;
    const leaderText = fields.get('Leader')!;
    out.push({
      topic,
      partition,
      leader: /^\d+$/.test(leaderText) ? Number(leaderText) : -1,
      replicas: ids(fields.get('Replicas')),
      isr: ids(fields.get('Isr')),
      adding: ids(fields.get('Adding Replicas')),
      removing: ids(fields.get('Removing Replicas')),
      elr: fields.has('Elr') ? ids(fields.get('Elr')) : null,
      lastKnownElr: fields.has('LastKnownElr') ? ids(fields.get('LastKnownElr')) : null,
    });
  }
  return out;
}

const ids = (text: string | undefined): number[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
