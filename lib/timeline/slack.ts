// `/kafka timeline <incident>` and the Timeline button, ack side: find the
// incident thread, enqueue the export, answer at once. The worker builds the
// Markdown file and posts it in the thread (lib/timeline/jobs.ts).
import * as z from 'zod';
import { newJob, slackOriginSchema } from '../queue/job.ts';
import { ephemeral } from '../slack/commands.ts';
import { enqueueTracked } from '../slack/enqueue.ts';
import { commandBudget } from '../slack/command-budget.ts';
import { clip, escapeMrkdwn } from '../slack/limits.ts';
import type { AckDeps, ActionHandler, ActionInvocation, CommandReply, SlackContribution, SlashSubcommand } from '../slack/registry.ts';
import { TIMELINE_ACTION } from './button.ts';
import { INCIDENT_ID, incidentIdOf } from '../state/incident-log.ts';

export const TIMELINE_JOB_KIND = 'timeline';

export const timelineJobSchema = z.object({ incidentId: z.string().regex(INCIDENT_ID), origin: slackOriginSchema });
export type TimelineJob = z.infer<typeof timelineJobSchema>;

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const TS = /^\d{9,12}\.\d{6}$/;

/**
 * The incident a user names: its id (from a timeline file or the CLI), a link
 * to its thread or to any message in it (Slack's "Copy link"), or
 * `<channel id>/<thread ts>`.
 */
export function parseIncidentArg(arg: string): string | null {
  const text = arg.replace(/^<|>$/g, '').trim();
  if (INCIDENT_ID.test(text)) return text;
  const plain = /^([CGD][A-Z0-9]{2,})\/(\d{9,12}\.\d{6})$/.exec(text);
  if (plain) return incidentIdOf(plain[1]!, plain[2]!);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const m = /\/archives\/([CGD][A-Z0-9]{2,})\/p(\d{10,12})(\d{6})$/.exec(url.pathname);
  if (!m) return null;
  const threadTs = url.searchParams.get('thread_ts');
  const ts = threadTs && TS.test(threadTs) ? threadTs : `${m[2]}.${m[3]}`;
  return incidentIdOf(m[1]!, ts);
}

const USAGE = 'Usage: `/kafka timeline <link to the incident thread | incident id>`';

/** One export per incident in flight (the job removes it); the TTL frees it if the worker dies. */
export const timelineFlightKey = (incidentId: string): string => `timeline-export:${incidentId}`;
const TIMELINE_FLIGHT_SECONDS = 300;

/**
 * Bounded per user and channel (an export reads the state table and the
 * metrics source, and uploads a file), and shared: a second request for an
 * incident whose export is running gets that export, posted in the same thread.
 */
async function enqueueExport(deps: AckDeps, incidentId: string, origin: { channelId: string; userId: string; responseUrl?: string }, correlationId: string): Promise<CommandReply | null> {
  const over = await commandBudget(deps, { userId: origin.userId, channelId: origin.channelId }, 'timeline');
  if (over) return over;
  if (!(await deps.store.create(timelineFlightKey(incidentId), { correlationId }, TIMELINE_FLIGHT_SECONDS))) {
    return ephemeral(':spiral_note_pad: The timeline of this thread is already being built; it will be posted as a file in the thread.');
  }
  const payload: TimelineJob = { incidentId, origin };
  const refused = await enqueueTracked(deps, newJob(TIMELINE_JOB_KIND, payload, correlationId), { title: 'timeline export', channelId: origin.channelId, userId: origin.userId });
  if (refused) await deps.store.remove(timelineFlightKey(incidentId)).catch(() => undefined);
  return refused;
}

export const timelineCommand: SlashSubcommand = {
  name: 'timeline',
  usage: 'timeline <incident>',
  summary: "post an incident thread's postmortem timeline (Markdown) in that thread",
  async run(inv, deps) {
    const [arg, ...extra] = inv.args;
    if (!arg || extra.length) return ephemeral(`:warning: name one incident thread.\n${USAGE}`);
    const incidentId = parseIncidentArg(arg);
    if (!incidentId) return ephemeral(`:warning: "${escapeMrkdwn(clip(arg, 100))}" is neither a link to a Slack thread nor an incident id.\n${USAGE}`);
    const refused = await enqueueExport(deps, incidentId, { channelId: inv.channelId, userId: inv.userId, ...(inv.responseUrl ? { responseUrl: inv.responseUrl } : {}) }, inv.correlationId);
    if (refused) return refused;
    return ephemeral(':spiral_note_pad: Building the timeline; it will be posted as a file in the incident thread.');
  },
};

/** The thread a click came from: the parent's ts when the button sits in a reply, else the message's own. */
function threadOfClick(inv: ActionInvocation): { channel: string; threadTs: string } | null {
  const p = inv.payload as { container?: { channel_id?: string; thread_ts?: string; message_ts?: string }; channel?: { id?: string }; message?: { thread_ts?: string; ts?: string } };
  const channel = inv.channelId ?? p.container?.channel_id ?? p.channel?.id;
  const threadTs = p.container?.thread_ts ?? p.message?.thread_ts ?? p.container?.message_ts ?? p.message?.ts ?? inv.messageTs;
  return channel && CHANNEL_ID.test(channel) && threadTs && TS.test(threadTs) ? { channel, threadTs } : null;
}

export const timelineAction: ActionHandler = {
  actionIdPrefix: TIMELINE_ACTION,
  async run(inv, deps) {
    const thread = threadOfClick(inv);
    if (!thread) return ephemeral(':warning: I cannot tell which thread this button is in.');
    const refused = await enqueueExport(deps, incidentIdOf(thread.channel, thread.threadTs), { channelId: thread.channel, userId: inv.userId, ...(inv.responseUrl ? { responseUrl: inv.responseUrl } : {}) }, inv.correlationId);
    if (refused) return refused;
  },
};

/** What the timeline adds to the Slack app. */
export const timelineSlack: SlackContribution = { commands: [timelineCommand], actions: [timelineAction] };
