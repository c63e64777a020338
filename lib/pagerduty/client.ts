// The two calls the bot makes to PagerDuty, each one attempt with a time
// limit: retries are the delivery job's (deliveries.ts), never a wait here.
//   Events API v2   POST {events}/v2/change/enqueue           (202)
//   REST API        POST {rest}/incidents/{id}/notes          (201), Token + From
// A failure says its class: no answer, a timeout, 429 or 5xx are transient;
// any other refusal (a wrong routing key or token, an unknown incident) needs
// a person, and retrying it would only fail again.
import * as z from 'zod';
import { ResponderError, type FailureClass, errorMessage, foreignTransient } from '../runtime/errors.ts';
import { clip } from '../slack/limits.ts';
import type { ChangeEventBody } from './change-events.ts';

export class PagerDutyError extends ResponderError {
  override name = 'PagerDutyError';
  constructor(
    message: string,
    readonly failure: FailureClass,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** PagerDuty's error bodies: Events API {status, message, errors[]}, REST API {error: {message, errors[]}}. */
const errorBody = z.object({
  message: z.string().optional(),
  errors: z.array(z.string()).optional(),
  error: z.object({ message: z.string().optional(), errors: z.array(z.string()).optional() }).optional(),
});

async function refusal(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return clip(text, 200);
  }
  const parsed = errorBody.safeParse(json);
  if (!parsed.success) return clip(text, 200);
  const b = parsed.data;
  return clip([b.message ?? b.error?.message, ...(b.errors ?? b.error?.errors ?? [])].filter(Boolean).join(': '), 200);
}

async function post(url: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (err) {
    // fetch says "fetch failed" and keeps the reason (ECONNREFUSED…) in `cause`; a timeout is an AbortSignal's TimeoutError.
    const cause = (err as { cause?: unknown }).cause;
    const timedOut = (err as Error).name === 'TimeoutError';
    const what = timedOut ? `no answer within ${timeoutMs} ms` : errorMessage(cause ?? err);
    const transient = timedOut || foreignTransient(cause) || foreignTransient(err) || err instanceof TypeError;
    throw new PagerDutyError(`PagerDuty unreachable: ${clip(what, 200)}`, transient ? 'transient' : 'needs-human');
  }
  if (res.ok) {
    await res.body?.cancel().catch(() => undefined);
    return;
  }
  const why = await refusal(res);
  const transient = res.status === 429 || res.status === 408 || res.status >= 500;
  throw new PagerDutyError(`PagerDuty answered ${res.status}${why ? `: ${why}` : ''}`, transient ? 'transient' : 'needs-human', res.status);
}

/** One Change Event; the routing key is added here, never stored with the queued body. */
export function sendChangeEvent(eventsApiUrl: string, routingKey: string, body: ChangeEventBody, timeoutMs: number): Promise<void> {
  return post(`${eventsApiUrl}/v2/change/enqueue`, { routing_key: routingKey, ...body }, {}, timeoutMs);
}

export interface NoteAuth {
  token: string;
  fromEmail: string;
}

/** A note on an incident, as the user whose email is From (PagerDuty requires it for a REST API token). */
export function sendIncidentNote(restApiUrl: string, auth: NoteAuth, incidentId: string, content: string, timeoutMs: number): Promise<void> {
  const headers = { authorization: `Token token=${auth.token}`, from: auth.fromEmail, accept: 'application/vnd.pagerduty+json;version=2' };
  return post(`${restApiUrl}/incidents/${encodeURIComponent(incidentId)}/notes`, { note: { content } }, headers, timeoutMs);
}
