// The digest of a big alert group, as a reply in its thread: how many alerts
// the group held, how many are shown, the counts that say where the trouble
// is, and the first alerts.
import type { KnownBlock } from '@slack/types';
import { context, section, type SlackMessage } from '../slack/blocks.ts';
import { clip, escapeMrkdwn, SLACK_LIMITS } from '../slack/limits.ts';
import { VALUE_ANNOTATION, type AlertDigest, type DigestAlert, type LabelCounts } from './digest.ts';

/** Alerts listed in the thread (the digest keeps more; the rest is counted). */
export const ALERTS_SHOWN_IN_THREAD = 20;
const ALERTS_PER_SECTION = 5;
/** Labels every alert of a group shares or that the counts already show: left out of each alert's line. */
const LINE_SKIPPED_LABELS = new Set(['alertname', 'severity', 'cluster', 'job', 'receiver', 'prometheus']);

export const n = (x: number): string => x.toLocaleString('en-US');

/** How many alerts are listed in the thread for this digest. */
export function shownInThread(digest: AlertDigest): number {
  return Math.min(ALERTS_SHOWN_IN_THREAD, digest.alerts.length);
}

/** "10,000 alerts (9,990 firing, 10 resolved), 20 shown": the headline of the group's size. */
export function groupSizeLine(digest: AlertDigest): string {
  const parts = [`${n(digest.firing)} firing`, `${n(digest.resolved)} resolved`];
  if (digest.truncatedBySender) parts.push(`${n(digest.truncatedBySender)} left out by Alertmanager's max_alerts`);
  if (digest.malformed) parts.push(`${n(digest.malformed)} malformed`);
  return `${n(digest.total)} alert${digest.total === 1 ? '' : 's'} (${parts.join(', ')}), ${n(shownInThread(digest))} shown`;
}

function countsLine(c: LabelCounts): string {
  const values = c.values.map((v) => `\`${escapeMrkdwn(clip(v.value, 80))}\` ${n(v.count)}`);
  const more = c.distinct - c.values.length;
  // c.others: alerts with an unlisted value or without the label.
  const rest = more > 0 ? ` · …and ${n(more)} more value${more === 1 ? '' : 's'} (${n(c.others)} alerts)` : c.others > 0 ? ` · ${n(c.others)} without it` : '';
  return `*${escapeMrkdwn(c.label)}:* ${values.join(' · ')}${rest}`;
}

function alertLine(a: DigestAlert): string {
  const icon = a.status === 'firing' ? ':rotating_light:' : ':white_check_mark:';
  const labels = Object.entries(a.labels)
    .filter(([k]) => !LINE_SKIPPED_LABELS.has(k))
    .map(([k, v]) => `${k}=${clip(v, 60)}`)
    .join(' ');
  const text = a.annotations.summary ?? a.annotations.description ?? a.labels.alertname ?? '';
  const value = a.annotations[VALUE_ANNOTATION];
  const evidence = value ? ` · values \`${escapeMrkdwn(clip(value, 160))}\`` : '';
  return `${icon} \`${escapeMrkdwn(clip(labels || (a.labels.alertname ?? 'alert'), 200))}\` ${escapeMrkdwn(clip(text, 200))}${evidence}`;
}

/** The thread reply for a group's digest. */
export function renderDigestReply(digest: AlertDigest): SlackMessage {
  const shown = shownInThread(digest);
  const headline = `:bar_chart: *This group holds ${groupSizeLine(digest)}.*`;
  const blocks: KnownBlock[] = [section(headline)];
  const counts = digest.counts.filter((c) => c.distinct > 1 || c.label === 'alertname').map(countsLine);
  if (counts.length) blocks.push(section(clip(counts.join('\n'), SLACK_LIMITS.sectionText)));
  const listed = digest.alerts.slice(0, shown);
  for (let i = 0; i < listed.length; i += ALERTS_PER_SECTION) {
    blocks.push(section(clip(listed.slice(i, i + ALERTS_PER_SECTION).map(alertLine).join('\n'), SLACK_LIMITS.sectionText)));
  }
  const notes: string[] = [];
  if (digest.total > shown) notes.push(`${n(shown)} of ${n(digest.total)} alerts shown; the others are in the counts above`);
  if (digest.valuesCut) notes.push(`${n(digest.valuesCut)} long label or annotation value${digest.valuesCut === 1 ? ' was' : 's were'} shortened`);
  if (notes.length) blocks.push(context(notes.join(' · ')));
  return { text: `This group holds ${groupSizeLine(digest)}`, blocks };
}
