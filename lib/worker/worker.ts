// The worker: takes one job off the queue, validates its payload and runs the
// handler registered for its kind. Infrastructure only: features contribute
// their job handlers (with their own dependencies) through the composition
// root (lib/root/worker.ts), which builds the registry from one list.
import type { ZodType } from 'zod';
import type { Config } from '../config/schema.ts';
import { formatIssues } from '../config/schema.ts';
import type { Log } from '../runtime/log.ts';
import { ResponderError, errorMessage } from '../runtime/errors.ts';
import type { SlackPoster } from '../slack/web.ts';
import type { StateStore } from '../state/state-store.ts';
import { jobSchema, type Job, type JobQueue } from '../queue/job.ts';

/** What every job gets from the worker: configuration and infrastructure, no feature. */
export interface WorkerDeps {
  config: Config;
  slack: SlackPoster;
  store: StateStore;
  log: Log;
  /** Milliseconds left before the worker must stop (Lambda's remaining time). */
  remainingMs?: () => number;
  /** Aborted when this invocation is about to be killed (serve's per-job time limit). */
  signal?: AbortSignal;
  /** For jobs that continue later (a long operation's next tick). */
  queue?: JobQueue;
}

export interface JobContext extends WorkerDeps {
  job: Job;
}

export interface JobHandler<P = unknown> {
  kind: string;
  schema: ZodType<P>;
  run(payload: P, ctx: JobContext): Promise<void>;
}

/** A job the worker will never be able to run (bad payload, unknown kind): fatal, so the worker drops it instead of retrying. */
export class PermanentJobError extends ResponderError {
  readonly failure = 'fatal';
  override name = 'PermanentJobError';
}

export class JobRegistry {
  private readonly handlers = new Map<string, JobHandler>();

  constructor(handlers: Iterable<JobHandler> = []) {
    for (const h of handlers) this.register(h);
  }

  register<P>(handler: JobHandler<P>): void {
    if (this.handlers.has(handler.kind)) throw new Error(`job kind already registered: ${handler.kind}`);
    this.handlers.set(handler.kind, handler as JobHandler);
  }

  has(kind: string): boolean {
    return this.handlers.has(kind);
  }

  get(kind: string): JobHandler | undefined {
    return this.handlers.get(kind);
  }
}

export function parseJob(input: unknown): Job {
  const parsed = jobSchema.safeParse(input);
  if (!parsed.success) throw new PermanentJobError(`malformed job:\n${formatIssues(parsed.error)}`);
  return parsed.data;
}

export async function runJob(input: unknown, deps: WorkerDeps, registry: JobRegistry): Promise<void> {
  const job = parseJob(input);
  const log = deps.log.with({ correlationId: job.correlationId, jobId: job.id, kind: job.kind });
  const handler = registry.get(job.kind);
  if (!handler) throw new PermanentJobError(`no handler for job kind "${job.kind}"`);
  const payload = handler.schema.safeParse(job.payload);
  if (!payload.success) throw new PermanentJobError(`malformed ${job.kind} payload:\n${formatIssues(payload.error)}`);
  const started = Date.now();
  log.info('job started', { queuedMs: started - Date.parse(job.enqueuedAt) });
  try {
    await handler.run(payload.data, { ...deps, log, job });
    log.info('job finished', { durationMs: Date.now() - started });
  } catch (err) {
    log.error('job failed', { durationMs: Date.now() - started, error: errorMessage(err) });
    throw err;
  }
}
