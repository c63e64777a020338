// Everything the bot sends to PagerDuty goes through an outbox: a record in
// the state table (written once per purpose: a conditional create, so a tick
// or job repeated after a crash queues nothing twice) and a delivery job of
// its own. The job makes one attempt with a time limit; a transient failure
// schedules the next attempt as a delayed job (backoff), anything else, or the
// last attempt, marks it failed. Until it is delivered it is listed by
// `/kafka status` in its channel. Nothing here runs in an operation's path:
// an unreachable PagerDuty costs the operation one table write and one enqueue.
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { PagerDutyConfig } from '../config/pagerduty.ts';
import { SECRETS, readSecret } from '../config/secrets.ts';
import { newJob } from '../queue/job.ts';
import { MAX_DELAY_MS } from '../queue/job.ts';
import { errorMessage, failureOf } from '../runtime/errors.ts';
import { clip } from '../slack/limits.ts';
import { listDelivery, unlistDelivery, type OutboundDelivery } from '../state/activity.ts';
import type { JobContext, JobHandler } from '../worker/worker.ts';
import type { ChangeEventBody } from './change-events.ts';
import { PagerDutyError, sendChangeEvent, sendIncidentNote } from './client.ts';

export const PAGERDUTY_JOB_KINDS = { deliver: 'pagerduty.deliver', sweep: 'pagerduty.sweep' } as const;

export type Delivery =
  | { target: 'change-event'; body: ChangeEventBody }
  | { target: 'incident-note'; incidentId: string; content: string };

export interface OutboxRecord {
  id: string;
  delivery: Delivery;
  what: string;
  channel: string;
  state: 'pending' | 'retrying' | 'delivered' | 'failed';
  attempts: number;
  queuedAt: string;
  error?: string;
  doneAt?: string;
  /** A retrying delivery's next attempt: when its delayed job is due. */
  dueAt?: string;
}

/** Kept well past the last retry: a request seen again later (a late refresh) finds it sent and sends nothing. */
const OUTBOX_TTL_SECONDS = 30 * 24 * 3600;
const outboxKey = (id: string) => `pagerduty:outbox:${id}`;
/** Every delivery not yet done, one list across channels: the sweep's view (sweepDeliveries). */
const PENDING_LIST = 'pagerduty:pending';
const pendingKey = (id: string) => `pagerduty:pending:${id}`;
/** A pending delivery no attempt has touched within this is queued again (its first enqueue was lost). */
export const REQUEUE_AFTER_MS = 2 * 60_000;
const MAX_SWEPT = 500;
const TARGET_NAMES = { 'change-event': 'PagerDuty change event', 'incident-note': 'PagerDuty note' } as const;

/** A stable id for one purpose ("change:<request>:approved"): the same purpose is queued once. */
export const deliveryId = (purpose: string) => createHash('sha256').update(purpose).digest('hex').slice(0, 32);

/** What the secrets are read with: the SecureString parameters in AWS, the variables locally (tests inject their own). */
export type PagerDutySecret = (name: 'routingKey' | 'apiToken') => Promise<string>;
export const defaultPagerDutySecret: PagerDutySecret = (name) => readSecret(name === 'routingKey' ? SECRETS.pagerdutyRoutingKey : SECRETS.pagerdutyApiToken);

function listed(r: OutboxRecord): OutboundDelivery | null {
  if (r.state === 'delivered') return null;
  return { id: r.id, target: TARGET_NAMES[r.delivery.target], what: r.what, state: r.state, attempts: r.attempts, ...(r.error ? { error: r.error } : {}), at: r.doneAt ?? r.queuedAt, channel: r.channel };
}

/**
 * Queues one delivery for `purpose`, once: true when this call queued it.
 * The record is listed before the job is enqueued, so a lost enqueue still
 * shows in `/kafka status` as pending.
 */
export async function queueDelivery(ctx: Pick<JobContext, 'store' | 'queue' | 'log' | 'job'>, purpose: string, delivery: Delivery, what: string, channel: string): Promise<boolean> {
  const id = deliveryId(purpose);
  const record: OutboxRecord = { id, delivery, what: clip(what, 300), channel, state: 'pending', attempts: 0, queuedAt: new Date().toISOString() };
  if (!(await ctx.store.create(outboxKey(id), record, OUTBOX_TTL_SECONDS))) return false;
  await listDelivery(ctx.store, listed(record)!, ctx.log);
  // In the sweep's view before the enqueue: a lost enqueue is queued again by the next sweep.
  await ctx.store.put(pendingKey(id), { id }, OUTBOX_TTL_SECONDS, PENDING_LIST);
  if (!ctx.queue) {
    ctx.log.warn('no queue to deliver to PagerDuty on; listed as pending', { purpose });
    return true;
  }
  // Its own FIFO lane: a delivery never waits behind (or holds up) the operation's ticks.
  await ctx.queue.enqueue(newJob(PAGERDUTY_JOB_KINDS.deliver, { id }, ctx.job.correlationId, `pd-${id}`));
  return true;
}

async function attempt(delivery: Delivery, config: PagerDutyConfig, secret: PagerDutySecret): Promise<void> {
  const timeout = config.delivery.timeoutMs;
  if (delivery.target === 'change-event') return sendChangeEvent(config.eventsApiUrl, await secret('routingKey'), delivery.body, timeout);
  if (!config.notes) throw new PagerDutyError('notes are not configured (pagerduty.notes.fromEmail)', 'needs-human');
  return sendIncidentNote(config.restApiUrl, { token: await secret('apiToken'), fromEmail: config.notes.fromEmail }, delivery.incidentId, delivery.content, timeout);
}

/** The wait before attempt n+1 (n ≥ 1): the first retry's wait, doubled each time, at most SQS's longest delay. */
export const retryDelayMs = (config: PagerDutyConfig, attempts: number) => Math.min(MAX_DELAY_MS, config.delivery.firstRetryMs * 2 ** (attempts - 1));

/** One attempt at a queued delivery; the next is its own delayed job. */
export async function deliver(ctx: JobContext, id: string, secret: PagerDutySecret): Promise<OutboxRecord['state'] | 'gone'> {
  const key = outboxKey(id);
  const stored = await ctx.store.get<OutboxRecord>(key);
  if (!stored || stored.value.state === 'delivered' || stored.value.state === 'failed') return stored?.value.state ?? 'gone';
  const config = ctx.config.pagerduty;
  // Counted before the call: a copy of this job (SQS delivers at least once) loses the write and sends nothing.
  const trying: OutboxRecord = { ...stored.value, attempts: stored.value.attempts + 1 };
  if (!(await ctx.store.replace(key, stored.version, trying, OUTBOX_TTL_SECONDS))) return 'gone';
  let failure: unknown = null;
  try {
    if (!config) throw new PagerDutyError('PagerDuty is no longer configured (pagerduty)', 'needs-human');
    await attempt(trying.delivery, config, secret);
  } catch (err) {
    failure = err;
  }
  const now = new Date().toISOString();
  if (failure === null) {
    await ctx.store.replace(key, stored.version + 1, { ...trying, state: 'delivered', doneAt: now }, OUTBOX_TTL_SECONDS);
    await unlistDelivery(ctx.store, id, ctx.log);
    await ctx.store.remove(pendingKey(id));
    return 'delivered';
  }
  const transient = (failureOf(failure) ?? 'transient') === 'transient';
  const again = transient && config !== undefined && trying.attempts < config.delivery.maxAttempts;
  const delayMs = again ? retryDelayMs(config, trying.attempts) : 0;
  const next: OutboxRecord = { ...trying, state: again ? 'retrying' : 'failed', error: clip(errorMessage(failure), 300), ...(again ? { dueAt: new Date(Date.now() + delayMs).toISOString() } : { doneAt: now }) };
  ctx.log.warn('PagerDuty delivery failed', { id, target: trying.delivery.target, attempts: trying.attempts, retry: again, error: next.error });
  await ctx.store.replace(key, stored.version + 1, next, OUTBOX_TTL_SECONDS);
  await listDelivery(ctx.store, listed(next)!, ctx.log);
  if (!again) await ctx.store.remove(pendingKey(id));
  if (again && ctx.queue) await ctx.queue.enqueue(newJob(PAGERDUTY_JOB_KINDS.deliver, { id }, ctx.job.correlationId), { delayMs });
  return next.state;
}

/** The record of a delivery, for tests and the docs' examples. */
export async function outboxRecord(store: JobContext['store'], id: string): Promise<OutboxRecord | null> {
  return (await store.get<OutboxRecord>(outboxKey(id)))?.value ?? null;
}

/**
 * The minute sweep's part for PagerDuty (lib/root/deployed-worker.ts, serve's
 * timer): a delivery whose job is REQUEUE_AFTER_MS past due and untouched lost
 * that job (listed by /kafka status, never sent): it is queued again. Due is
 * when it was queued for a delivery no attempt has touched, and its retry's
 * time for one retrying. A copy of a job that did arrive sends nothing twice
 * (deliver counts the attempt with a conditional write first).
 */
export async function sweepDeliveries(ctx: Pick<JobContext, 'store' | 'queue' | 'log' | 'job'>, now = Date.now()): Promise<{ looked: number; requeued: number; cleared: number }> {
  const counts = { looked: 0, requeued: 0, cleared: 0 };
  for (const item of await ctx.store.list<{ id: string }>(PENDING_LIST, MAX_SWEPT)) {
    counts.looked++;
    const id = item.value.id;
    const record = (await ctx.store.get<OutboxRecord>(outboxKey(id)))?.value;
    if (!record || record.state === 'delivered' || record.state === 'failed') {
      await ctx.store.remove(item.key);
      counts.cleared++;
      continue;
    }
    const due = record.state === 'retrying' ? record.dueAt : record.attempts === 0 ? record.queuedAt : undefined;
    if (due === undefined || !(now - Date.parse(due) >= REQUEUE_AFTER_MS) || !ctx.queue) continue;
    await ctx.queue.enqueue(newJob(PAGERDUTY_JOB_KINDS.deliver, { id }, ctx.job.correlationId, `pd-${id}`));
    ctx.log.info('PagerDuty delivery queued again: its job is past due', { id, state: record.state, due });
    counts.requeued++;
  }
  return counts;
}

const deliverJobSchema = z.object({ id: z.string().regex(/^[0-9a-f]{32}$/) });

/** PagerDuty's job kinds, for the worker's registry (lib/root/worker.ts). */
export function pagerDutyJobs(deps: { pagerdutySecret?: PagerDutySecret }): JobHandler[] {
  const secret = deps.pagerdutySecret ?? defaultPagerDutySecret;
  const job: JobHandler<z.infer<typeof deliverJobSchema>> = {
    kind: PAGERDUTY_JOB_KINDS.deliver,
    schema: deliverJobSchema,
    run: async (payload, ctx) => void (await deliver(ctx, payload.id, secret)),
  };
  const sweep: JobHandler<Record<string, unknown>> = {
    kind: PAGERDUTY_JOB_KINDS.sweep,
    schema: z.record(z.string(), z.unknown()),
    run: async (_payload, ctx) => void ctx.log.info('PagerDuty deliveries sweep', await sweepDeliveries(ctx)),
  };
  return [job, sweep];
}
