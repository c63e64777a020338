// The HTTP/SNS edge for alerts: authenticate, validate, enqueue, answer.
// Anything malformed or unauthenticated gets a 4xx with the reason and is
// never enqueued; the worker does the triage. A valid notification is never
// refused for its size: Alertmanager retries only on 5xx, so a 4xx loses the
// group. Every body the platform can deliver is taken (API Gateway's HTTP API
// up to 10 MB, of which Lambda passes 6 MB), folded into a bounded digest, and
// a job too large for a queue message has its payload stored (lib/queue/oversize.ts).
import { createHash, randomUUID } from 'node:crypto';
import { newJob, type JobQueue } from '../queue/job.ts';
import { fitJob, type FittedJob, type SpillStore } from '../queue/oversize.ts';
import type { HttpEvent, HttpResult, SnsEvent } from '../runtime/lambda-types.ts';
import { header, json, rawBody } from '../runtime/lambda-types.ts';
import type { Log } from '../runtime/log.ts';
import type { SnsParseOutcome } from './cloudwatch.ts';
import { ALERT_JOB_KIND, type AlertEvent } from './event.ts';
import { alertmanagerSource } from './sources/alertmanager.ts';
import { cloudwatchSource } from './sources/cloudwatch.ts';
import type { HttpAlertSource, SnsAlertSource } from './sources/types.ts';

/** API Gateway HTTP API's payload limit: nothing larger reaches us deployed, and serve takes the same. */
export const MAX_ALERT_BODY_BYTES = 10 * 1024 * 1024;

export function alertGroupOf(event: AlertEvent): string {
  // SQS FIFO group ids are at most 128 characters: hash the group key.
  return createHash('sha256').update(event.groupKey).digest('hex').slice(0, 64);
}

export async function enqueueAlert(event: AlertEvent, queue: JobQueue, store: SpillStore, correlationId: string): Promise<FittedJob> {
  const fitted = await fitJob(newJob(ALERT_JOB_KIND, event, correlationId, alertGroupOf(event)), store);
  await queue.enqueue(fitted.job);
  return fitted;
}

export interface AlertIntakeDeps {
  queue: JobQueue;
  /** Where a payload too large for a queue message is kept for the worker (the state table). */
  store: SpillStore;
  log: Log;
  /** The bearer token Alertmanager sends (http_config.authorization.credentials). */
  bearerToken: string;
}

export function createAlertmanagerHandler(deps: AlertIntakeDeps): (event: HttpEvent) => Promise<HttpResult> {
  return createHttpAlertHandler(alertmanagerSource, { ...deps, secret: deps.bearerToken });
}

/** The body as the sender's bytes: a signature is checked on these, never on a re-encoding. */
function rawBytes(event: HttpEvent): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

function refused(log: Log, event: HttpEvent, reason: string): HttpResult {
  log.warn('rejected alert: unauthenticated', { reason, sourceIp: event.requestContext?.http?.sourceIp });
  return json(401, { error: reason });
}

/** Enqueues each event; the sender's answer and the log line name what was accepted. */
async function accept(events: AlertEvent[], deps: Omit<AlertIntakeDeps, 'bearerToken'>, log: Log, correlationId: string, meta: { bodyBytes: number; started: number }): Promise<HttpResult> {
  const jobIds: string[] = [];
  for (const alert of events) {
    if (alert.digest?.malformed) log.warn('alerts in the notification were malformed; counted, the rest accepted', { malformed: alert.digest.malformed });
    let fitted: FittedJob;
    try {
      fitted = await enqueueAlert(alert, deps.queue, deps.store, correlationId);
    } catch (err) {
      // Senders retry on 5xx: the alert is not lost.
      log.error('could not enqueue alert', { error: (err as Error).message });
      return json(503, { error: 'queue unavailable; retry' });
    }
    jobIds.push(fitted.job.id);
    log.info('alert accepted', {
      jobId: fitted.job.id,
      groupKey: alert.groupKey,
      status: alert.status,
      alertname: alert.alertname,
      alerts: alert.count,
      bodyBytes: meta.bodyBytes,
      jobBytes: fitted.bytes,
      ...(fitted.spilledBytes !== undefined ? { storedPayloadBytes: fitted.spilledBytes } : {}),
      intakeMs: Date.now() - meta.started,
    });
  }
  const alerts = events.reduce((n, e) => n + e.count, 0);
  if (jobIds.length === 1) return json(202, { accepted: true, jobId: jobIds[0], correlationId, alerts });
  return json(202, { accepted: true, jobIds, correlationId, alerts });
}

/**
 * A webhook source's handler (deployed and in serve): authenticate, validate,
 * enqueue, answer. `secret` is the source's own (its SecureString deployed).
 */
export function createHttpAlertHandler(source: HttpAlertSource, deps: Omit<AlertIntakeDeps, 'bearerToken'> & { secret: string }): (event: HttpEvent) => Promise<HttpResult> {
  const { auth } = source;
  if (deps.secret.length < auth.minSecretChars) throw new Error(`the ${source.label} ${auth.secretNoun} must be at least ${auth.minSecretChars} characters`);
  return async (event) => {
    const correlationId = `${source.idPrefix}-${randomUUID().slice(0, 13)}`;
    const log = deps.log.with({ correlationId, source: source.name });
    const method = event.requestContext?.http?.method ?? 'POST';
    if (method !== 'POST') return json(405, { error: 'use POST' });
    const get = (name: string) => header(event, name);
    const headerError = auth.checkHeaders(get, deps.secret);
    if (headerError) return refused(log, event, headerError);
    const started = Date.now();
    const body = rawBody(event);
    const bodyBytes = Buffer.byteLength(body);
    // Only a body no platform piece could have delivered (a local client ignoring the limit).
    if (bodyBytes > MAX_ALERT_BODY_BYTES) return json(413, { error: `payload larger than ${MAX_ALERT_BODY_BYTES} bytes (API Gateway's limit)` });
    // A signature over the raw bytes, before they are parsed.
    const bodyError = auth.checkBody?.(get, rawBytes(event), deps.secret);
    if (bodyError) return refused(log, event, bodyError);
    const parsed = source.parse(body);
    if (!parsed.ok) {
      log.warn('rejected alert: malformed', { reason: parsed.reason.slice(0, 2000) });
      return json(parsed.reason.startsWith('body is not JSON') ? 400 : 422, { error: parsed.reason.slice(0, 4000) });
    }
    if (parsed.value.length === 0) {
      log.info('notification accepted; nothing in it to triage');
      return json(202, { accepted: true, correlationId, alerts: 0 });
    }
    return accept(parsed.value, deps, log, correlationId, { bodyBytes, started });
  };
}

export interface SnsIntakeResult extends SnsParseOutcome {
  jobIds: string[];
}

/**
 * SNS → Lambda. A malformed record is logged and dropped (a throw would make
 * SNS retry something that can never parse); valid records are enqueued.
 */
export function createSnsHandler(deps: { queue: JobQueue; store: SpillStore; log: Log }, source: SnsAlertSource = cloudwatchSource): (event: SnsEvent | unknown) => Promise<SnsIntakeResult> {
  return async (event) => {
    const correlationId = `${source.idPrefix}-${randomUUID().slice(0, 13)}`;
    const log = deps.log.with({ correlationId, source: source.name });
    const parsed = source.parse(event);
    if (!parsed.ok) {
      log.warn('rejected SNS event: malformed', { reason: parsed.reason });
      return { events: [], rejected: [{ reason: parsed.reason }], ignored: [], jobIds: [] };
    }
    for (const r of parsed.value.rejected) log.warn('rejected SNS record: malformed', r);
    for (const r of parsed.value.ignored) log.info('ignored SNS record', r);
    const jobIds: string[] = [];
    for (const e of parsed.value.events) {
      const fitted = await enqueueAlert(e, deps.queue, deps.store, correlationId);
      jobIds.push(fitted.job.id);
      log.info('alarm accepted', { groupKey: e.groupKey, status: e.status, alertname: e.alertname, jobBytes: fitted.bytes });
    }
    return { ...parsed.value, jobIds };
  };
}
