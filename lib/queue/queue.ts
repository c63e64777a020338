// Queues for handing work from the ack path to the worker.
import { MAX_DELAY_MS, type EnqueueOptions, type Job, type JobQueue } from './job.ts';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import { assertJobFits } from './oversize.ts';

export class SqsJobQueue implements JobQueue {
  constructor(
    private readonly sqs: { sendMessage(input: { QueueUrl: string; MessageBody: string; MessageGroupId?: string; MessageDeduplicationId?: string; DelaySeconds?: number }): Promise<unknown> },
    private readonly queueUrl: string,
    /**
     * A standard queue for delayed jobs: FIFO queues take no per-message delay.
     * Without it a delayed job on a FIFO queue runs at once.
     */
    private readonly delayQueueUrl?: string,
  ) {}

  async enqueue(job: Job, options: EnqueueOptions = {}): Promise<void> {
    // SQS would refuse it on every retry: say so here (callers store big payloads first, lib/queue/oversize.ts).
    assertJobFits(job);
    const delaySeconds = Math.min(MAX_DELAY_MS, Math.max(0, options.delayMs ?? 0)) / 1000;
    if (delaySeconds >= 1 && this.delayQueueUrl) {
      await this.sqs.sendMessage({ QueueUrl: this.delayQueueUrl, MessageBody: JSON.stringify(job), DelaySeconds: Math.round(delaySeconds) });
      return;
    }
    const fifo = this.queueUrl.endsWith('.fifo');
    await this.sqs.sendMessage({
      QueueUrl: this.queueUrl,
      MessageBody: JSON.stringify(job),
      // FIFO: jobs of one alert group run in order, so one group keeps one thread.
      ...(fifo ? { MessageGroupId: job.group ?? job.id, MessageDeduplicationId: job.id } : {}),
    });
  }
}

/** What an in-process job gets to behave as it would on Lambda: its time left and a kill signal. */
export interface JobLimits {
  remainingMs: () => number;
  signal: AbortSignal;
}

/**
 * Runs jobs in this process, after the current request has answered (local
 * server, tests). `idle()` resolves when every queued job has finished.
 * With `timeoutMs` each job gets the deployed worker's time limit: when it
 * runs out, the job is treated as killed (its signal aborts, the queue moves
 * on and ignores whatever it still does), as Lambda would.
 */
export class InProcessJobQueue implements JobQueue {
  private readonly pending = new Set<Promise<void>>();
  /** Per-group tail, so jobs of one group run in order like on a FIFO queue. */
  private readonly tails = new Map<string, Promise<void>>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private closed = false;
  /** The most recent jobs (bounded: the local server runs for days). */
  readonly enqueued: Job[] = [];
  /** Jobs that ran out of time (killed), most recent last: ids only, and only the last 100 (the local server runs for days). */
  readonly timedOut: { id: string; kind: string; at: string }[] = [];

  constructor(
    private readonly run: (job: Job, limits: JobLimits) => Promise<void>,
    private readonly log?: Log,
    private readonly timeoutMs = 15 * 60_000,
    /**
     * Awaited before each job starts (serve: until the requests in flight are
     * answered, so a burst's jobs do not take the CPU its acks need). A gate
     * that fails only lets the job start: no job is dropped by it.
     */
    private readonly startGate?: () => Promise<void>,
  ) {}

  async enqueue(job: Job, options: EnqueueOptions = {}): Promise<void> {
    if (this.closed) return;
    // The same limit as SQS, so what works locally works deployed.
    assertJobFits(job);
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, options.delayMs ?? 0));
    if (delay > 0) {
      // A delayed job counts as pending, so idle() waits for it like SQS would deliver it.
      let release!: () => void;
      const waiting = new Promise<void>((r) => (release = r));
      this.pending.add(waiting);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.pending.delete(waiting);
        void this.enqueue(job).finally(release);
      }, delay);
      this.timers.set(timer, () => {
        this.pending.delete(waiting);
        release();
      });
      return;
    }
    this.enqueued.push(job);
    if (this.enqueued.length > 1000) this.enqueued.splice(0, this.enqueued.length - 1000);
    const key = job.group ?? job.id;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const p = previous
      .then(() => new Promise<void>((r) => setImmediate(r)))
      .then(() => this.startGate?.().catch(() => undefined))
      .then(() => this.runWithLimit(job))
      .catch((err) => this.log?.error('in-process job failed', { jobId: job.id, kind: job.kind, error: errorMessage(err) }))
      .finally(() => {
        this.pending.delete(p);
        if (this.tails.get(key) === p) this.tails.delete(key);
      });
    this.pending.add(p);
    this.tails.set(key, p);
  }

  private runWithLimit(job: Job): Promise<void> {
    const controller = new AbortController();
    const deadline = Date.now() + this.timeoutMs;
    const timers: NodeJS.Timeout[] = [];
    const after = (ms: number) => new Promise<void>((resolve) => timers.push(setTimeout(resolve, ms)));
    const running = this.run(job, { remainingMs: () => deadline - Date.now(), signal: controller.signal });
    const stopped = running.then(
      () => {},
      () => {},
    );
    const killed = after(this.timeoutMs).then(() => {
      controller.abort();
      this.timedOut.push({ id: job.id, kind: job.kind, at: new Date().toISOString() });
      if (this.timedOut.length > 100) this.timedOut.splice(0, this.timedOut.length - 100);
      this.log?.warn('job ran out of time (the worker would be killed here)', { jobId: job.id, kind: job.kind, timeoutMs: this.timeoutMs });
      // Its group's next job waits until it has really stopped (its signal is aborted), as a FIFO
      // group waits for a killed job's message: two jobs of one group never run at once.
      // One more time limit at most, so a job that ignores its signal cannot hold its group for ever.
      return Promise.race([
        stopped,
        after(this.timeoutMs).then(() => this.log?.error('a killed job is still running; the next job of its group starts anyway', { jobId: job.id, kind: job.kind })),
      ]);
    });
    return Promise.race([running, killed]).finally(() => timers.forEach(clearTimeout));
  }

  /** Stops delayed jobs from firing (server shutdown); jobs already running finish. */
  close(): void {
    this.closed = true;
    for (const [t, drop] of this.timers) {
      clearTimeout(t);
      drop();
    }
    this.timers.clear();
  }

  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }
}
