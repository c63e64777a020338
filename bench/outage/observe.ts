// What a client of the cluster sees during an operation: a Metadata poller
// (every 50 ms, over the project's own admin, which keeps leaderless partitions
// instead of throwing on them) and a kafkajs producer with acks=all retrying one
// write every ~50 ms. Both stop by themselves after `maxMs`.
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { openAdmin, type KafkaAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';

export const POLL_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface PartitionSeen {
  partition: number;
  leader: number;
  replicas: number[];
  isr: number[];
}

/** Whether the topic's partitions (as one Metadata answer has them) are what the poller waits for. */
export type PartitionPredicate = (ps: PartitionSeen[]) => boolean;

/** `partition` is led by `broker` (any leader when `broker` is undefined). */
export const leads = (partition: number, broker?: number): PartitionPredicate => (ps) => ps.some((p) => p.partition === partition && (broker === undefined ? p.leader >= 0 : p.leader === broker));
/** `partition` is led by its preferred replica (the first of its replicas). */
export const preferredLeads = (partition: number): PartitionPredicate => (ps) => ps.some((p) => p.partition === partition && p.leader >= 0 && p.leader === p.replicas[0]);
/** Some partition's replica set no longer holds `broker` (a move off it is complete in Metadata). */
export const movedOff = (broker: number): PartitionPredicate => (ps) => ps.some((p) => !p.replicas.includes(broker));

export interface PollResult {
  /** Date.now() of the first answer in which the predicate held (undefined: never within maxMs). */
  at: number | undefined;
  /** Metadata requests answered, and the mean interval between their starts (the poll interval achieved). */
  polls: number;
  meanIntervalMs: number;
  errors: number;
  last: PartitionSeen[] | undefined;
}

export class MetadataPoller {
  private stopped = false;
  private readonly done: Promise<PollResult>;

  private constructor(admin: KafkaAdmin, topic: string, until: PartitionPredicate, maxMs: number) {
    this.done = this.loop(admin, topic, until, maxMs).finally(() => admin.close());
  }

  /** Opens the admin (bootstrap Metadata) before it returns, so the first poll is not a connect. */
  static async start(bootstrap: string, topic: string, until: PartitionPredicate, maxMs = 180_000): Promise<MetadataPoller> {
    const admin = await openAdmin(parseConnectionConfig({ bootstrap: bootstrap.split(','), clientId: 'kr-bench-poller' }), { timeoutMs: 2_000 });
    return new MetadataPoller(admin, topic, until, maxMs);
  }

  private async loop(admin: KafkaAdmin, topic: string, until: PartitionPredicate, maxMs: number): Promise<PollResult> {
    const started = Date.now();
    const starts: number[] = [];
    let errors = 0;
    let last: PartitionSeen[] | undefined;
    while (!this.stopped && Date.now() - started < maxMs) {
      const t = Date.now();
      starts.push(t);
      try {
        const md = await admin.metadata([topic]);
        const ps = md.topicMetadata.find((x) => x.topic === topic)?.partitionMetadata ?? [];
        last = ps.map((p) => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr }));
        if (until(last)) return result(Date.now(), starts, errors, last);
      } catch {
        errors++;
      }
      await sleep(Math.max(0, t + POLL_MS - Date.now()));
    }
    return result(undefined, starts, errors, last);
  }

  /** Resolves when the predicate held, or the poller was stopped or ran out of time. */
  result(): Promise<PollResult> {
    return this.done;
  }

  stop(): Promise<PollResult> {
    this.stopped = true;
    return this.done;
  }
}

function result(at: number | undefined, starts: number[], errors: number, last: PartitionSeen[] | undefined): PollResult {
  const meanIntervalMs = starts.length > 1 ? (starts.at(-1)! - starts[0]!) / (starts.length - 1) : NaN;
  return { at, polls: starts.length, meanIntervalMs, errors, last };
}

export interface WriteResult {
  /** Date.now() when the first acks=all write was acknowledged. */
  at: number | undefined;
  attempts: number;
  lastError: string | undefined;
}

/** A producer with acks=all (-1) that tries one write every ~50 ms until one is acknowledged. */
export class AcksAllWriter {
  private stopped = false;
  private readonly done: Promise<WriteResult>;

  private constructor(producer: Producer, topic: string, partition: number, maxMs: number) {
    this.done = this.loop(producer, topic, partition, maxMs).finally(() => producer.disconnect().catch(() => undefined));
  }

  static async start(bootstrap: string, topic: string, partition: number, maxMs = 180_000): Promise<AcksAllWriter> {
    // Connecting retries (a seed broker may be the dead one); a send does not: the loop retries it.
    const kafka = new Kafka({ clientId: 'kr-bench-writer', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING, connectionTimeout: 1_000, requestTimeout: 3_000, retry: { retries: 8, initialRetryTime: 50, maxRetryTime: 500 } });
    const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 }, metadataMaxAge: 0 });
    await producer.connect();
    return new AcksAllWriter(producer, topic, partition, maxMs);
  }

  private async loop(producer: Producer, topic: string, partition: number, maxMs: number): Promise<WriteResult> {
    const started = Date.now();
    let attempts = 0;
    let lastError: string | undefined;
    while (!this.stopped && Date.now() - started < maxMs) {
      const t = Date.now();
      attempts++;
      try {
        await producer.send({ topic, acks: -1, timeout: 3_000, messages: [{ partition, value: `bench write ${t}` }] });
        return { at: Date.now(), attempts, lastError };
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      }
      await sleep(Math.max(0, t + POLL_MS - Date.now()));
    }
    return { at: undefined, attempts, lastError };
  }

  result(): Promise<WriteResult> {
    return this.done;
  }

  stop(): Promise<WriteResult> {
    this.stopped = true;
    return this.done;
  }
}

/** A poller and a writer on one partition, started together. */
export interface Observers {
  poller: MetadataPoller;
  writer: AcksAllWriter | undefined;
}

export async function observe(bootstrap: string, topic: string, partition: number, until: PartitionPredicate, write: boolean): Promise<Observers> {
  const [poller, writer] = await Promise.all([MetadataPoller.start(bootstrap, topic, until), write ? AcksAllWriter.start(bootstrap, topic, partition) : undefined]);
  return { poller, writer };
}

/** Waits (at most `ms`) for both to finish, then stops whichever has not. */
export async function settle(o: Observers, ms: number): Promise<{ poll: PollResult; write: WriteResult | undefined }> {
  const timer = setTimeout(() => {
    void o.poller.stop();
    void o.writer?.stop();
  }, ms);
  try {
    const [poll, write] = await Promise.all([o.poller.result(), o.writer?.result()]);
    return { poll, write };
  } finally {
    clearTimeout(timer);
  }
}
