// The Slack app's one way in: a Bolt receiver for Lambda (and `serve`) that
// checks the signature and its freshness once, refuses a replay once (the
// first delivery of each signature wins a conditional write), parses the body
// as Slack sent it and hands the event to Bolt (app.processEvent). Bolt then
// routes it through our middleware (authorization, click dedupe) to a listener;
// the HTTP answer is whatever the listener acked.
import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import type { HttpEvent, HttpResult, LambdaContext } from '../runtime/lambda-types.ts';
import { header, rawBody } from '../runtime/lambda-types.ts';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { StateStore } from '../state/state-store.ts';
import { SIGNATURE_TOLERANCE_SECONDS, verifySlackSignature } from './verify.ts';

/** A replay must find its signature's key: kept past both ends of the freshness window. */
const REPLAY_KEY_TTL_SECONDS = 2 * SIGNATURE_TOLERANCE_SECONDS + 60;
/** The replay marks' keys (`serve` keeps them in process memory beside an in-process dynalite). */
export const REPLAY_KEY_PREFIX = 'slack-sig:';

export interface LambdaSlackReceiverOptions {
  signingSecret: string;
  store: StateStore;
  log: Log;
  nowSeconds?: () => number;
}

const text = (statusCode: number, body: string): HttpResult => ({ statusCode, headers: { 'content-type': 'text/plain' }, body });

/** Slack's bodies: a form (slash commands; interactivity as `payload=<json>`) or JSON (Events API). */
function parseBody(body: string, contentType: string): Record<string, unknown> {
  if (contentType === 'application/json') {
    const parsed: unknown = JSON.parse(body);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('expected a JSON object');
    return parsed as Record<string, unknown>;
  }
  const form = new URLSearchParams(body);
  const payload = form.get('payload');
  if (payload !== null) {
    const parsed: unknown = JSON.parse(payload);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('expected a JSON object in payload');
    return parsed as Record<string, unknown>;
  }
  return Object.fromEntries(form);
}

export class LambdaSlackReceiver implements Receiver {
  private app: App | undefined;
  private readonly now: () => number;

  constructor(private readonly opts: LambdaSlackReceiverOptions) {
    this.now = opts.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  }

  init(app: App): void {
    this.app = app;
  }

  // Nothing listens: Lambda (or `serve`) calls handle().
  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  async handle(event: HttpEvent, _context?: LambdaContext): Promise<HttpResult> {
    const { log } = this.opts;
    const body = rawBody(event);
    const verdict = verifySlackSignature({
      signingSecret: this.opts.signingSecret,
      rawBody: body,
      signature: header(event, 'x-slack-signature'),
      timestamp: header(event, 'x-slack-request-timestamp'),
      nowSeconds: this.now(),
    });
    if (!verdict.ok) {
      log.warn('rejected slack request', { reason: verdict.reason, path: event.rawPath });
      return text(401, verdict.reason);
    }
    // Within the 5-minute window a captured request would verify again: repeats lose the conditional write.
    let firstDelivery: boolean;
    try {
      firstDelivery = await this.opts.store.create(`${REPLAY_KEY_PREFIX}${verdict.signature}`, { ts: verdict.timestamp }, REPLAY_KEY_TTL_SECONDS);
    } catch (err) {
      // The store's own retries (throttling) are spent: refuse rather than skip the replay check.
      log.error('replay check unavailable; request refused', { path: event.rawPath, error: errorMessage(err) });
      return text(503, 'state store unavailable, try again');
    }
    if (!firstDelivery) {
      log.warn('rejected replayed slack request', { path: event.rawPath, requestTimestamp: verdict.timestamp });
      return text(401, 'replayed request');
    }
    const contentType = (header(event, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (contentType !== 'application/x-www-form-urlencoded' && contentType !== 'application/json') {
      return { statusCode: 415, body: `unsupported content type "${contentType}"` };
    }
    let parsed: Record<string, unknown>;
    try {
      parsed = parseBody(body, contentType);
    } catch (err) {
      log.warn('slack request could not be parsed', { path: event.rawPath, error: errorMessage(err) });
      return text(400, 'malformed request body');
    }
    if (parsed.ssl_check !== undefined) return { statusCode: 200, body: '' };
    if (parsed.type === 'url_verification') {
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge: parsed.challenge }) };
    }
    return this.dispatch(parsed, event);
  }

  /** Bolt answers through `ack`; the listener's ack is the HTTP response. */
  private async dispatch(body: Record<string, unknown>, event: HttpEvent): Promise<HttpResult> {
    if (!this.app) throw new Error('LambdaSlackReceiver used before the App initialised it');
    let acked = false;
    let response: unknown;
    const retryNum = Number(header(event, 'x-slack-retry-num'));
    const retryReason = header(event, 'x-slack-retry-reason');
    const receiverEvent: ReceiverEvent = {
      body,
      ack: async (r?: unknown) => {
        if (acked) throw new Error('this Slack request was already acknowledged');
        acked = true;
        response = r ?? '';
      },
      ...(Number.isInteger(retryNum) && retryNum > 0 ? { retryNum } : {}),
      ...(retryReason ? { retryReason } : {}),
    };
    try {
      await this.app.processEvent(receiverEvent);
    } catch (err) {
      this.opts.log.error('slack request could not be processed', { path: event.rawPath, error: errorMessage(err) });
      if (!acked) return text(500, 'internal error; see the function logs');
    }
    if (!acked) {
      this.opts.log.info('no slack listener matched the request', { path: event.rawPath });
      return { statusCode: 404, body: '' };
    }
    if (typeof response === 'string') return { statusCode: 200, body: response };
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(response) };
  }
}
