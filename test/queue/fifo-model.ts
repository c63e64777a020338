// SQS FIFO delivery as it matters for head-of-line blocking, on a simulated
// clock: within one MessageGroupId only the oldest message is ever in flight;
// a message whose handler fails becomes visible again after the visibility
// timeout, and after maxReceiveCount receives it goes to the dead-letter queue.
// Different groups never wait for each other. (serverless.yml's JobQueue:
// VisibilityTimeout 1080 s, maxReceiveCount 3.)
import type { Job, JobQueue } from '../../lib/queue/job.ts';

export interface FifoModelOptions {
  visibilityTimeoutMs: number;
  maxReceiveCount: number;
}

interface Message {
  job: Job;
  group: string;
  receives: number;
  visibleAt: number;
}

export class FifoModelQueue implements JobQueue {
  now = 0;
  private readonly messages: Message[] = [];
  readonly deadLetters: Job[] = [];
  /** Every delivery: when, which job, and whether its handler succeeded. */
  readonly deliveries: { at: number; job: Job; ok: boolean }[] = [];

  constructor(private readonly opts: FifoModelOptions) {}

  async enqueue(job: Job): Promise<void> {
    // As SqsJobQueue sends it: MessageGroupId = job.group ?? job.id.
    this.messages.push({ job, group: job.group ?? job.id, receives: 0, visibleAt: this.now });
  }

  /** Delivers until nothing is left (or `untilMs` of simulated time), running `handle` for each delivery. */
  async drain(handle: (job: Job) => Promise<void>, untilMs = 24 * 3_600_000): Promise<void> {
    while (this.messages.length > 0 && this.now <= untilMs) {
      // The head of each group, if visible now.
      const heads = new Map<string, Message>();
      for (const m of this.messages) if (!heads.has(m.group)) heads.set(m.group, m);
      const ready = [...heads.values()].filter((m) => m.visibleAt <= this.now);
      if (ready.length === 0) {
        this.now = Math.min(...[...heads.values()].map((m) => m.visibleAt));
        continue;
      }
      for (const m of ready) {
        m.receives++;
        let ok = true;
        try {
          await handle(m.job);
        } catch {
          ok = false;
        }
        this.deliveries.push({ at: this.now, job: m.job, ok });
        if (ok) this.messages.splice(this.messages.indexOf(m), 1);
        else if (m.receives >= this.opts.maxReceiveCount) {
          this.messages.splice(this.messages.indexOf(m), 1);
          this.deadLetters.push(m.job);
        } else m.visibleAt = this.now + this.opts.visibilityTimeoutMs;
      }
    }
  }
}
