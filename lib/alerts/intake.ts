// The HTTP/SNS edge for alerts: authenticate, validate, enqueue, answer.
// Anything malformed or unauthenticated gets a 4xx with the reason and is
// never enqueued; the worker does the triage. A valid notification is never
// refused for its size: Alertmanager retries only on 5xx, so a 4xx loses the
// group. Every body the platform can deliver is taken (API Gateway's HTTP API
// up to 10 MB, of which Lambda passes 6 MB), folded into a bounded digest, and
// a job too large for a queue message has its payload stored (lib/queue/oversize.ts).
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { newJob, type JobQueue } from '../queue/job.ts';
import { fitJob, type FittedJob, type SpillStore } from '../queue/oversize.ts';
import type { HttpEvent, HttpResult, SnsEvent } from '../runtime/lambda-types.ts';
import { header, json, rawBody } from '../runtime/lambda-types.ts';
import type { Log } from '../runtime/log.ts';
import { parseAlertmanager } from './alertmanager.ts';
import { parseSnsEvent, type SnsParseOutcome } from './cloudwatch.ts';
import { ALERT_JOB_KIND, type AlertEvent } from './event.ts';

/** API Gateway HTTP API's payload limit: nothing larger reaches us deployed, and serve takes the same. */
export const MAX_ALERT_BODY_BYTES = 10 * 1024 * 1024;

function sha256(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Constant-time comparison of `Authorization: Bearer <token>` against the configured token. */
export function checkBearer(authorization: string | undefined, expected: string): string | null {
  if (!authorization) return 'missing Authorization header (expected "Bearer <token>")';
  const m = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!m) return 'Authorization header is not a bearer token';
  return timingSafeEqual(sha256(m[1]!), sha256(expected)) ? null : 'invalid bearer token';
}

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
  if (deps.bearerToken.length < 16) throw new Error('the Alertmanager bearer token must be at least 16 characters');
  return async (event) => {
    const correlationId = `am-${randomUUID().slice(0, 13)}`;
    const log = deps.log.with({ correlationId, source: 'alertmanager' });
    const method = event.requestContext?.http?.method ?? 'POST';
    if (method !== 'POST') return json(405, { error: 'use POST' });
    const authError = checkBearer(header(event, 'authorization'), deps.bearerToken);
    if (authError) {
      log.warn('rejected alert: unauthenticated', { reason: authError, sourceIp: event.requestContext?.http?.sourceIp });
      return json(401, { error: authError });
    }
    const started = Date.now();
    const body = rawBody(event);
    const bodyBytes = Buffer.byteLength(body);
    // Only a body no platform piece could have delivered (a local client ignoring the limit).
    if (bodyBytes > MAX_ALERT_BODY_BYTES) return json(413, { error: `payload larger than ${MAX_ALERT_BODY_BYTES} bytes (API Gateway's limit)` });
    const parsed = parseAlertmanager(body);
    if (!parsed.ok) {
      log.warn('rejected alert: malformed', { reason: parsed.reason.slice(0, 2000) });
      return json(parsed.reason.startsWith('body is not JSON') ? 400 : 422, { error: parsed.reason.slice(0, 4000) });
    }
    const alert = parsed.value;
    if (alert.digest?.malformed) log.warn('alerts in the notification were malformed; counted, the rest accepted', { malformed: alert.digest.malformed });
    let fitted: FittedJob;
    try {
      fitted = await enqueueAlert(alert, deps.queue, deps.store, correlationId);
    } catch (err) {
      // Alertmanager retries on 5xx: the alert is not lost.
      log.error('could not enqueue alert', { error: (err as Error).message });
      return json(503, { error: 'queue unavailable; retry' });
    }
    log.info('alert accepted', {
      jobId: fitted.job.id,
      groupKey: alert.groupKey,
      status: alert.status,
      alertname: alert.alertname,
      alerts: alert.count,
      bodyBytes,
      jobBytes: fitted.bytes,
      ...(fitted.spilledBytes !== undefined ? { storedPayloadBytes: fitted.spilledBytes } : {}),
      intakeMs: Date.now() - started,
    });
    return json(202, { accepted: true, jobId: fitted.job.id, correlationId, alerts: alert.count });
  };
}

export interface SnsIntakeResult extends SnsParseOutcome {
  jobIds: string[];
}

/**
 * SNS → Lambda. A malformed record is logged and dropped (a throw would make
 * SNS retry something that can never parse); valid records are enqueued.
 */
export function createSnsHandler(deps: { queue: JobQueue; store: SpillStore; log: Log }): (event: SnsEvent | unknown) => Promise<SnsIntakeResult> {
  return async (event) => {
    const correlationId = `cw-${randomUUID().slice(0, 13)}`;
    const log = deps.log.with({ correlationId, source: 'cloudwatch' });
    const parsed = parseSnsEvent(event);
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
