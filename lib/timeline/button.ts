// The Timeline button every incident and diagnosis thread carries. It holds no
// id: the handler (lib/timeline/slack.ts) takes the incident from the thread
// it was clicked in, so the alert's parent, a diagnosis's parent and any
// message in their threads all name the same incident.
// The timeline's own, and the one file of lib/timeline/ that the features
// posting those threads (lib/diagnose/, lib/alerts/) may import: a leaf that
// imports lib/slack/ only (eslint.config.js THREAD_BUTTONS), so no import runs
// back from it into a feature.
import { button, type SlackMessage } from '../slack/blocks.ts';

export const TIMELINE_ACTION = 'timeline:export';

export function timelineActions() {
  return { type: 'actions' as const, elements: [button({ text: 'Timeline', actionId: TIMELINE_ACTION, value: 'thread' })] };
}

/** The message with the Timeline button at its end. */
export function withTimelineButton(message: SlackMessage): SlackMessage {
  return { ...message, blocks: [...message.blocks, timelineActions()] };
}
