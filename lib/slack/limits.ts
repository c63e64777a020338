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

/**
 * The one escape for text we did not write (alert labels and annotations,
 * cluster and broker output, log lines, user arguments) before it goes into
 * mrkdwn or a message's fallback `text`: Slack reads `&`, `<` and `>` as
 * control characters (`<!channel>`, `<https://x|link>`), so they become
 * `&amp;`, `&lt;`, `&gt;` and nothing someone else wrote can mention, link or
 * format outside what we meant.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text from outside as inline code: escaped, backticks made quotes (they would end it), at most 100 characters. */
export function inlineCode(text: string): string {
  return `\`${escapeMrkdwn(text.replace(/`/g, "'").slice(0, 100))}\``;
}

/** Escapes, then clips to `max` characters without cutting an entity (`&amp;`) in half. */
export function clipEscaped(text: string, max: number): string {
  return clipMrkdwn(escapeMrkdwn(text), max);
}

/** Clips mrkdwn escaped already (by whoever put a payload's text in it) without cutting an entity in half. */
export function clipMrkdwn(escaped: string, max: number): string {
  if (escaped.length <= max) return escaped;
  const cut = escaped.slice(0, Math.max(0, max - 1));
  const amp = cut.lastIndexOf('&');
  const whole = amp >= 0 && !cut.slice(amp).includes(';') ? cut.slice(0, amp) : cut;
  return `${whole}…`;
}
