// Triage messages for the incident channel.
import type { KnownBlock } from '@slack/types';
import { context, section, type SlackMessage } from '../slack/blocks.ts';
import { clip, clipEscaped, escapeMrkdwn } from '../slack/limits.ts';
import type { AlertEvent, AlertStatus } from './event.ts';
import type { RoutedAlert } from './routing.ts';
import { groupSizeLine, n } from './big-group-reply.ts';
import { ALERT_SOURCES } from './sources/index.ts';

/** "Alertmanager", "Grafana": the source as people call it. */
const sourceLabel = (event: AlertEvent): string => ALERT_SOURCES.find((s) => s.name === event.source)?.label ?? event.source;

export interface ThreadView {
  status: AlertStatus;
  flapping: boolean;
  cycles: number;
  windowMinutes: number;
}

function statusLine(event: AlertEvent, view: ThreadView): string {
  const icon = view.flapping ? ':warning:' : view.status === 'firing' ? ':rotating_light:' : ':white_check_mark:';
  const label = `${view.flapping ? 'FLAPPING · ' : ''}${view.status === 'firing' ? 'FIRING' : 'RESOLVED'}`;
  return `${icon} *${label}* — ${escapeMrkdwn(event.title)}`;
}

/**
 * An http(s) URL as the target of a Slack link, or null: `|` would end the
 * target and start our link text, `&`, `<`, `>` are escaped as Slack asks.
 */
function linkTarget(url: string): string | null {
  if (!/^https?:\/\/[^\s]+$/i.test(url)) return null;
  return escapeMrkdwn(url).replace(/\|/g, '%7C');
}

/** The sender's own links (Grafana's dashboard, panel, silence), each target and label escaped. */
function linkLine(links: NonNullable<AlertEvent['links']>): string {
  return links
    .slice(0, 6)
    .flatMap(({ label, url }) => {
      const target = linkTarget(url);
      return target ? [`<${target}|${escapeMrkdwn(clip(label, 40)).replace(/[|<>]/g, '')}>`] : [];
    })
    .join(' · ');
}

/** The thread's parent message: edited in place as the group changes state. */
export function renderTriageParent(event: AlertEvent, routed: RoutedAlert, view: ThreadView): SlackMessage {
  const details: string[] = [];
  details.push(`*Source:* ${escapeMrkdwn(sourceLabel(event))} · \`${escapeMrkdwn(event.alertname)}\``);
  details.push(`*Cluster:* ${routed.cluster ? escapeMrkdwn(routed.cluster.name) : event.clusterHint ? `${escapeMrkdwn(event.clusterHint)} (not configured)` : 'unknown'}`);
  if (event.brokers.length) details.push(`*Brokers:* ${event.brokers.slice(0, 20).join(', ')}`);
  if (event.topics.length) details.push(`*Topics:* ${escapeMrkdwn(event.topics.slice(0, 10).join(', '))}`);
  if (event.digest && event.digest.total > 1) details.push(`*Alerts in group:* ${groupSizeLine(event.digest)} in the thread`);
  else if (event.count > 1) details.push(`*Alerts in group:* ${n(event.count)}`);
  const blocks: KnownBlock[] = [section(statusLine(event, view)), section(escapeMrkdwn(clip(event.summary || '(no summary)', 1500))), section(details.join('\n'))];
  if (routed.route.note) blocks.push(context(escapeMrkdwn(routed.route.note)));
  if (view.flapping) {
    blocks.push(context(`:warning: fired and resolved ${view.cycles} times within ${view.windowMinutes} min`));
  }
  const link = event.url ? linkTarget(event.url) : null;
  if (link) blocks.push(context(`<${link}|open in ${escapeMrkdwn(sourceLabel(event))}>`));
  const links = linkLine(event.links ?? []);
  if (links) blocks.push(context(links));
  const text = `${view.flapping ? 'FLAPPING ' : ''}${view.status.toUpperCase()}: ${event.title}`;
  return { text: clipEscaped(text, 300), blocks };
}

export function renderTransitionReply(event: AlertEvent, briefMs: number | null): SlackMessage {
  const when = event.at;
  if (event.status === 'firing') {
    return { text: `Firing again at ${escapeMrkdwn(when)}`, blocks: [section(`:rotating_light: Firing again at ${escapeMrkdwn(when)}: ${escapeMrkdwn(clip(event.summary, 1500))}`)] };
  }
  const brief =
    briefMs !== null && briefMs < 5 * 60 * 1000
      ? `\n:eyes: It cleared after ${Math.max(1, Math.round(briefMs / 1000))} s. A brief alert is not a false alarm by default: a write-failure alert that fires and clears within moments can be a broker dropping whole request batches, and ignoring one has ended with consumer groups that could not consume.`
      : '';
  return { text: `Resolved at ${escapeMrkdwn(when)}`, blocks: [section(`:white_check_mark: Resolved at ${escapeMrkdwn(when)}.${brief}`)] };
}

export function renderFlappingCallout(cycles: number, windowMinutes: number): SlackMessage {
  const text =
    `:warning: *This alert is flapping*: it fired and resolved ${cycles} times within ${windowMinutes} minutes. ` +
    'Do not ignore it: intermittent failed writes are how a broker dropping whole request batches shows itself, and such an alert, once ignored, has ended with consumers stopped. ' +
    'Look for unsupported request versions in broker logs and for brokers restarting.';
  return { text: 'This alert is flapping', blocks: [section(text)] };
}
