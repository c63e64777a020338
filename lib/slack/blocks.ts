// Generic Block Kit helpers, always within Slack's limits (text lengths,
// button values). Feature rendering (diagnosis, operations, alerts) lives in
// each feature's folder.
import type { KnownBlock } from '@slack/types';
import { SLACK_LIMITS, clip, clipEscaped, escapeMrkdwn } from './limits.ts';

export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

export function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: clip(text, SLACK_LIMITS.sectionText) } };
}

export function context(text: string): KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: clip(text, SLACK_LIMITS.sectionText) }] };
}

export function header(text: string): KnownBlock {
  return { type: 'header', text: { type: 'plain_text', text: clip(text, SLACK_LIMITS.headerText), emoji: true } };
}

export function renderFailure(what: string, reason: string, correlationId: string): SlackMessage {
  const text = `:x: ${escapeMrkdwn(what)} failed: ${escapeMrkdwn(clip(reason, 1500))}\ncorrelation id \`${correlationId}\``;
  return { text: clipEscaped(`${what} failed: ${clip(reason, 200)}`, 300), blocks: [section(text)] };
}

/**
 * A button within Slack's limits (text 75, action_id 255, value 2,000). A value
 * that does not fit is a programming error: store the payload (e.g. in the
 * state store) and put its key in the value instead of truncating it.
 */
export function button(opts: { text: string; actionId: string; value: string; style?: 'primary' | 'danger' }) {
  if (opts.actionId.length > SLACK_LIMITS.actionId) throw new Error(`action_id longer than ${SLACK_LIMITS.actionId} characters`);
  if (opts.value.length > SLACK_LIMITS.buttonValue) throw new Error(`button value is ${opts.value.length} characters; Slack allows ${SLACK_LIMITS.buttonValue}: store it and pass a key`);
  return {
    type: 'button' as const,
    text: { type: 'plain_text' as const, text: clip(opts.text, SLACK_LIMITS.buttonText), emoji: true },
    action_id: opts.actionId,
    value: opts.value,
    ...(opts.style ? { style: opts.style } : {}),
  };
}
