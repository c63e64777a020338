// Slack's Block Kit limits (docs.slack.dev reference, see shared/platform-notes.md).
export const SLACK_LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  buttonText: 75,
  buttonValue: 2000,
  actionsElements: 25,
  actionId: 255,
  headerText: 150,
  contextElements: 10,
  /** chat.postMessage `text` is truncated by Slack past 40,000; keep fallbacks short. */
  fallbackText: 3000,
} as const;

/** Cuts to at most `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** Escapes the three characters Slack mrkdwn treats as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
