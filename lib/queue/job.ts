// The envelope every queued job travels in (SQS message body, async Lambda
// payload or in-process call). `kind` selects a handler registered with the
// worker, so issue-5 operations add kinds without touching this file.
import { randomUUID } from 'node:crypto';
import * as z from 'zod';

export const jobSchema = z.object({
  id: z.string().min(1),
  kind: z.string().regex(/^[a-z][a-z0-9.-]{0,63}$/),
  correlationId: z.string().min(1).max(128),
  enqueuedAt: z.string(),
  /** Jobs with the same group run in order (SQS FIFO MessageGroupId), e.g. one alert group. */
  group: z.string().min(1).max(128).optional(),
  payload: z.unknown(),
});
export type Job = z.infer<typeof jobSchema>;

export function newJob(kind: string, payload: unknown, correlationId: string, group?: string): Job {
  return { id: randomUUID(), kind, correlationId, enqueuedAt: new Date().toISOString(), payload, ...(group ? { group } : {}) };
}

export interface EnqueueOptions {
  /** Run the job no earlier than this (a long operation's next tick). SQS caps a delay at 900 s. */
  delayMs?: number;
}

export const MAX_DELAY_MS = 900_000;

export interface JobQueue {
  enqueue(job: Job, options?: EnqueueOptions): Promise<void>;
}

/** Where a Slack-originated job reports back. */
export const slackOriginSchema = z.object({
  teamId: z.string().optional(),
  channelId: z.string().min(1),
  userId: z.string().min(1),
  responseUrl: z.url().optional(),
  /** Post the findings thread under this message instead of starting one. */
  threadTs: z.string().optional(),
});
export type SlackOrigin = z.infer<typeof slackOriginSchema>;
