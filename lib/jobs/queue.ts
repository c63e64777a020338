// Queues for handing work from the ack path to the worker.
import type { Job, JobQueue } from './job.ts';
import type { Log } from './log.ts';
import { errorMessage } from './log.ts';

export class SqsJobQueue implements JobQueue {
  constructor(
    private readonly sqs: { sendMessage(input: { QueueUrl: string; MessageBody: string; MessageGroupId?: string; MessageDeduplicationId?: string }): Promise<unknown> },
    private readonly queueUrl: string,
  ) {}

  async enqueue(job: Job): Promise<void> {
    const fifo = this.queueUrl.endsWith('.fifo');
    await this.sqs.sendMessage({
      QueueUrl: this.queueUrl,
      MessageBody: JSON.stringify(job),
      // FIFO: jobs of one alert group run in order, so one group keeps one thread.
      ...(fifo ? { MessageGroupId: job.group ?? job.id, MessageDeduplicationId: job.id } : {}),
    });
  }
}

/**
 * Runs jobs in this process, after the current request has answered (local
 * server, tests). `idle()` resolves when every queued job has finished.
 */
export class InProcessJobQueue implements JobQueue {
  private readonly pending = new Set<Promise<void>>();
  /** Per-group tail, so jobs of one group run in order like on a FIFO queue. */
  private readonly tails = new Map<string, Promise<void>>();
  /** The most recent jobs (bounded: the local server runs for days). */
  readonly enqueued: Job[] = [];

  constructor(
    private readonly run: (job: Job) => Promise<void>,
    private readonly log?: Log,
  ) {}

  async enqueue(job: Job): Promise<void> {
    this.enqueued.push(job);
    if (this.enqueued.length > 1000) this.enqueued.splice(0, this.enqueued.length - 1000);
    const key = job.group ?? job.id;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const p = previous
      .then(() => new Promise<void>((r) => setImmediate(r)))
      .then(() => this.run(job))
      .catch((err) => this.log?.error('in-process job failed', { jobId: job.id, kind: job.kind, error: errorMessage(err) }))
      .finally(() => {
        this.pending.delete(p);
        if (this.tails.get(key) === p) this.tails.delete(key);
      });
    this.pending.add(p);
    this.tails.set(key, p);
  }

  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }
}
