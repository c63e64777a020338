// A worker process that stops right after its N-th write, as a Lambda killed
// by its timeout or a host dying does: the write happened (DynamoDB stored
// the item, Slack shows the message, Kafka took the change), the process
// never learns it, and from then on it writes nothing, reads nothing and
// enqueues nothing. Every write a job can make goes through one of these
// wrappers, so a test can stop the process after each of them in turn.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KafkaAdmin } from '../../lib/kafka/admin/types.ts';
import type { OperationIo } from '../../lib/operations/kind.ts';
import type { Job, JobQueue } from '../../lib/queue/job.ts';
import type { SlackPoster } from '../../lib/slack/web.ts';

export class ProcessStopped extends Error {
  override name = 'ProcessStopped';
}

/** Counts one worker process's writes and stops it after the `stopAfter`-th (never when null). */
export class StopPoint {
  readonly writes: string[] = [];
  private stopped = false;
  /** Calls under way, and who waits for them to end (settled()). */
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  readonly abort = new AbortController();
  constructor(private readonly stopAfter: number | null) {}

  /** Once stopped, no call starts: resolves when the calls already under way have ended. */
  settled(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private async track<T>(call: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await call();
    } finally {
      if (--this.inFlight === 0) this.waiting.splice(0).forEach((resolve) => resolve());
    }
  }

  get dead(): boolean {
    return this.stopped;
  }

  /** Before any call: a stopped process makes none. */
  alive(what: string): void {
    if (this.stopped) throw new ProcessStopped(`process stopped; ${what} never happened`);
  }

  /** After a write succeeded: count it, and stop here if this is the one. */
  wrote(what: string): void {
    this.writes.push(what);
    if (this.stopAfter !== null && this.writes.length === this.stopAfter) {
      this.stopped = true;
      this.abort.abort();
      throw new ProcessStopped(`process stopped right after write ${this.writes.length}: ${what}`);
    }
  }

  async write<T>(what: string, call: () => Promise<T>): Promise<T> {
    this.alive(what);
    const result = await this.track(call);
    this.wrote(what);
    return result;
  }

  async read<T>(what: string, call: () => Promise<T>): Promise<T> {
    this.alive(what);
    return this.track(call);
  }
}

export function stoppableSlack(slack: SlackPoster, stop: StopPoint): SlackPoster {
  return {
    post: (m) => stop.write(`slack post ${m.thread_ts ? 'reply' : 'message'}: ${m.text.slice(0, 60)}`, () => slack.post(m)),
    update: (m) => stop.write(`slack update: ${m.text.slice(0, 60)}`, () => slack.update(m)),
    upload: (f) => stop.write(`slack upload ${f.filename}`, () => slack.upload(f)),
    respond: (url, body) => stop.write(`slack respond: ${body.text.slice(0, 60)}`, () => slack.respond(url, body)),
    ...(slack.find ? { find: (where, metadata) => stop.read('slack find', () => slack.find!(where, metadata)) } : {}),
  };
}

export function stoppableQueue(queue: JobQueue, stop: StopPoint): JobQueue {
  return { enqueue: (job: Job, options) => stop.write(`enqueue ${job.kind}`, () => queue.enqueue(job, options)) };
}

const DYNAMO_WRITES = /^(Put|Update|Delete|TransactWrite|BatchWrite)(Item|Items)?Command$|^(Put|Update|Delete|TransactWrite|BatchWrite)Command$/;

/**
 * A DynamoDB client whose every call goes through `stop` (the document
 * client shares the middleware stack, so both kinds of command pass here).
 * Reads count as calls, writes as writes.
 */
export function stoppableDynamo(client: DynamoDBClient, stop: StopPoint): DynamoDBClient {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '');
      const input = args.input as { TableName?: string; Key?: Record<string, unknown>; Item?: Record<string, unknown> };
      const what = `dynamo ${command} ${describeKey(input.Key ?? input.Item)}`;
      if (!DYNAMO_WRITES.test(command)) return stop.read(what, () => next(args));
      return stop.write(what, () => next(args));
    },
    { step: 'initialize', name: 'stopPoint' },
  );
  return client;
}

function describeKey(key: Record<string, unknown> | undefined): string {
  if (!key) return '';
  const part = (v: unknown) => (v && typeof v === 'object' && 'S' in v ? String((v as { S: unknown }).S) : typeof v === 'string' ? v : '');
  return [part(key.pk), part(key.sk)].filter(Boolean).join(' ');
}

const KAFKA_WRITES = ['alterPartitionReassignments', 'electLeaders', 'incrementalAlterConfigs', 'abortTransaction', 'commitOffsets'] as const;

/** The cluster as a run reaches it, its admin's changes going through `stop`. */
export function stoppableIo(io: OperationIo, stop: StopPoint): OperationIo {
  return {
    snapshot: (topics) => stop.read('kafka snapshot', () => io.snapshot(topics)),
    openAdmin: async () => stoppableAdmin(await stop.read('kafka open admin', () => io.openAdmin()), stop),
    ...(io.restart ? { restart: () => stop.read('host restart control', () => io.restart!()) } : {}),
    ...(io.replicaHosts ? { replicaHosts: (replicas: number[]) => stop.read('host replica measurement', () => io.replicaHosts!(replicas)) } : {}),
    ...(io.cluster ? { cluster: io.cluster } : {}),
  };
}

function stoppableAdmin(admin: KafkaAdmin, stop: StopPoint): KafkaAdmin {
  const writes = new Set<string>(KAFKA_WRITES);
  return new Proxy(admin, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      const bound = (value as (...a: unknown[]) => Promise<unknown>).bind(target);
      if (typeof prop === 'string' && writes.has(prop)) return (...a: unknown[]) => stop.write(`kafka ${prop}`, () => bound(...a));
      if (prop === 'close') return bound;
      return (...a: unknown[]) => stop.read(`kafka ${String(prop)}`, () => bound(...a));
    },
  });
}
