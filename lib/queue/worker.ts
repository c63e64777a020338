// The worker: takes one job off the queue, validates its payload and runs the
// handler registered for its kind. Issue-5 work (approvals, operations)
// registers more kinds on `jobRegistry`.
import type { ZodType } from 'zod';
import type { ApprovalService } from '../approvals/service.ts';
import type { Plan } from '../operations/types.ts';
import type { Config } from '../config/schema.ts';
import { formatIssues } from '../config/schema.ts';
import type { SlackPoster } from '../slack/web.ts';
import type { Diagnoser } from '../diagnose/diagnoser.ts';
import type { OperationsBackend } from '../operations/backend.ts';
import { jobSchema, type Job, type JobQueue } from './job.ts';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/log.ts';
import type { StateStore } from '../state/state-store.ts';

export interface WorkerDeps {
  config: Config;
  diagnoser: Diagnoser;
  slack: SlackPoster;
  store: StateStore;
  log: Log;
  /** Two-person approvals (issue 5); operation jobs fail permanently without them. */
  approvals?: ApprovalService<Plan>;
  /** Plans and runs operations on a cluster (lib/operations/backend.ts). */
  operations?: OperationsBackend;
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

/** A job the worker will never be able to run (bad payload, unknown kind): do not retry it. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

export class JobRegistry {
  private readonly handlers = new Map<string, JobHandler>();

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

export const jobRegistry = new JobRegistry();

export function parseJob(input: unknown): Job {
  const parsed = jobSchema.safeParse(input);
  if (!parsed.success) throw new PermanentJobError(`malformed job:\n${formatIssues(parsed.error)}`);
  return parsed.data;
}

export async function runJob(input: unknown, deps: WorkerDeps, registry: JobRegistry = jobRegistry): Promise<void> {
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
