// The HTTP/SNS edge for alerts: authenticate, validate, enqueue, answer.
// Anything malformed or unauthenticated gets a 4xx with the reason and is
// never enqueued; the worker does the triage.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { newJob, type JobQueue } from '../queue/job.ts';
import type { HttpEvent, HttpResult, SnsEvent } from '../runtime/lambda-types.ts';
import { header, json, rawBody } from '../runtime/lambda-types.ts';
import type { Log } from '../runtime/log.ts';
import { parseAlertmanager } from './alertmanager.ts';
import { parseSnsEvent, type SnsParseOutcome } from './cloudwatch.ts';
import { ALERT_JOB_KIND, type AlertEvent } from './event.ts';

const MAX_BODY_BYTES = 1024 * 1024;

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

export async function enqueueAlert(event: AlertEvent, queue: JobQueue, correlationId: string): Promise<string> {
  const job = newJob(ALERT_JOB_KIND, event, correlationId, alertGroupOf(event));
  await queue.enqueue(job);
  return job.id;
}

export interface AlertIntakeDeps {
  queue: JobQueue;
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
    const body = rawBody(event);
    if (Buffer.byteLength(body) > MAX_BODY_BYTES) return json(413, { error: 'payload larger than 1 MiB' });
    const parsed = parseAlertmanager(body);
    if (!parsed.ok) {
      log.warn('rejected alert: malformed', { reason: parsed.reason });
      return json(parsed.reason.startsWith('body is not JSON') ? 400 : 422, { error: parsed.reason });
    }
    let jobId: string;
    try {
      jobId = await enqueueAlert(parsed.value, deps.queue, correlationId);
    } catch (err) {
      // Alertmanager retries on 5xx: the alert is not lost.
      log.error('could not enqueue alert', { error: (err as Error).message });
      return json(503, { error: 'queue unavailable; retry' });
    }
    log.info('alert accepted', { jobId, groupKey: parsed.value.groupKey, status: parsed.value.status, alertname: parsed.value.alertname });
    return json(202, { accepted: true, jobId, correlationId });
  };
}

export interface SnsIntakeResult extends SnsParseOutcome {
  jobIds: string[];
}

/**
 * SNS → Lambda. A malformed record is logged and dropped (a throw would make
 * SNS retry something that can never parse); valid records are enqueued.
 */
export function createSnsHandler(deps: { queue: JobQueue; log: Log }): (event: SnsEvent | unknown) => Promise<SnsIntakeResult> {
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
      jobIds.push(await enqueueAlert(e, deps.queue, correlationId));
      log.info('alarm accepted', { groupKey: e.groupKey, status: e.status, alertname: e.alertname });
    }
    return { ...parsed.value, jobIds };
  };
}
