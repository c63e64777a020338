// Real signed Slack requests as API Gateway HTTP API (payload v2) events.
import { signSlackRequest } from '../../../lib/slack/verify.ts';
import type { HttpEvent } from '../../../lib/runtime/lambda-types.ts';

export const SIGNING_SECRET = 'test-signing-secret-0123456789abcdef';

export interface SignOptions {
  secret?: string;
  timestamp?: number;
  contentType?: string;
  base64?: boolean;
  path?: string;
}

export function signedEvent(body: string, opts: SignOptions = {}): HttpEvent {
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = signSlackRequest(opts.secret ?? SIGNING_SECRET, timestamp, body);
  return {
    version: '2.0',
    rawPath: opts.path ?? '/slack/events',
    headers: {
      'content-type': opts.contentType ?? 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': signature,
    },
    body: opts.base64 ? Buffer.from(body).toString('base64') : body,
    isBase64Encoded: opts.base64 ?? false,
    requestContext: { http: { method: 'POST', path: opts.path ?? '/slack/events' } },
  };
}

export interface SlashOptions {
  text: string;
  user?: string;
  channel?: string;
  responseUrl?: string;
  command?: string;
  /** The workspace the command comes from (team_id); T0TEST by default. */
  team?: string;
  enterprise?: string;
}

export function slashBody(o: SlashOptions): string {
  return new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: o.team ?? 'T0TEST',
    ...(o.enterprise ? { enterprise_id: o.enterprise } : {}),
    team_domain: 'test',
    channel_id: o.channel ?? 'C0OPS',
    channel_name: 'kafka-ops',
    user_id: o.user ?? 'U0ALICE',
    user_name: 'alice',
    command: o.command ?? '/kafka',
    text: o.text,
    api_app_id: 'A0TEST',
    is_enterprise_install: 'false',
    response_url: o.responseUrl ?? 'http://127.0.0.1:9/response',
    trigger_id: '123.456.abc',
  }).toString();
}

export function slashEvent(o: SlashOptions, sign: SignOptions = {}): HttpEvent {
  return signedEvent(slashBody(o), sign);
}

export function actionEvent(payload: Record<string, unknown>, sign: SignOptions = {}): HttpEvent {
  return signedEvent(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), { path: '/slack/interactivity', ...sign });
}

/** A button click on a posted message, as Slack sends it (block_actions). */
export function blockActionsPayload(o: {
  actionId: string;
  value: string;
  user: string;
  message: { channel: string; ts: string; text: string; thread_ts?: string };
  responseUrl: string;
  actionTs: string;
}): Record<string, unknown> {
  const thread = o.message.thread_ts ? { thread_ts: o.message.thread_ts } : {};
  return {
    type: 'block_actions',
    user: { id: o.user },
    channel: { id: o.message.channel },
    team: { id: 'T0TEST' },
    api_app_id: 'A0TEST',
    token: 't',
    container: { type: 'message', message_ts: o.message.ts, ...thread },
    message: { ts: o.message.ts, text: o.message.text, ...thread },
    response_url: o.responseUrl,
    trigger_id: '1.2.3',
    actions: [{ type: 'button', action_id: o.actionId, block_id: 'b', value: o.value, action_ts: o.actionTs, text: { type: 'plain_text', text: o.actionId } }],
  };
}
