// The generic `/kafka` subcommands (help, runbook, status) and reply helpers.
// Feature commands live in their feature's folder (lib/diagnose/slack.ts,
// lib/operations/slack.ts).
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { KnownBlock } from '@slack/types';
import { listDeliveries, listIncidents, listRunning, listUndelivered, type OutboundDelivery } from '../state/activity.ts';
import { SLACK_LIMITS, clip, escapeMrkdwn } from './limits.ts';
import type { CommandReply, SlackContribution, SlackRegistry, SlashSubcommand } from './registry.ts';

export function ephemeral(text: string, blocks?: KnownBlock[]): CommandReply {
  return { response_type: 'ephemeral', text, ...(blocks ? { blocks } : {}) };
}

export function usageReply(registry: SlackRegistry, problem?: string): CommandReply {
  const lines = registry.listCommands().map((c) => `• \`/kafka ${c.usage}\` — ${c.summary}`);
  const text = `${problem ? `:warning: ${problem}\n\n` : ''}*Usage:*\n${lines.join('\n')}`;
  return ephemeral(clip(text, SLACK_LIMITS.sectionText), [
    { type: 'section', text: { type: 'mrkdwn', text: clip(text, SLACK_LIMITS.sectionText) } },
  ]);
}

export function runbooksDir(): string {
  return process.env.KR_RUNBOOKS_DIR ?? join(process.cwd(), 'runbooks');
}

async function availableRunbooks(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)).sort();
  } catch {
    return [];
  }
}

/** Markdown to mrkdwn sections of at most 3,000 characters, at most `maxBlocks`. */
export function runbookBlocks(markdown: string, maxBlocks = 40): { blocks: KnownBlock[]; truncated: boolean } {
  const mrkdwn = markdown
    .replace(/^#{1,6}\s+(.*)$/gm, '*$1*')
    .replace(/\*\*(.+?)\*\*/g, '*$1*');
  const chunks: string[] = [];
  let current = '';
  for (const para of mrkdwn.split(/\n{2,}/)) {
    const piece = clip(para, SLACK_LIMITS.sectionText);
    if (current && current.length + piece.length + 2 > SLACK_LIMITS.sectionText) {
      chunks.push(current);
      current = piece;
    } else current = current ? `${current}\n\n${piece}` : piece;
  }
  if (current) chunks.push(current);
  const truncated = chunks.length > maxBlocks;
  const blocks: KnownBlock[] = chunks.slice(0, maxBlocks).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } }));
  return { blocks, truncated };
}

export const runbookCommand: SlashSubcommand = {
  name: 'runbook',
  usage: 'runbook <kind>',
  summary: 'show the runbook for a finding kind, e.g. offline-partition',
  async run(inv) {
    const dir = runbooksDir();
    const [kind, ...extra] = inv.args;
    const known = await availableRunbooks(dir);
    const list = known.length ? `Available: ${known.map((k) => `\`${k}\``).join(', ')}` : 'No runbooks are installed.';
    if (!kind || extra.length) return ephemeral(clip(`:warning: name one runbook.\nUsage: \`/kafka runbook <kind>\`\n${list}`, SLACK_LIMITS.sectionText));
    // Only names from the directory listing are read: user text never becomes a path.
    if (!known.includes(kind)) return ephemeral(clip(`:warning: no runbook called "${escapeMrkdwn(clip(kind, 64))}".\n${list}`, SLACK_LIMITS.sectionText));
    const text = await readFile(join(dir, `${kind}.md`), 'utf8');
    const { blocks, truncated } = runbookBlocks(text);
    if (truncated) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `Truncated: the full runbook is runbooks/${kind}.md in the repository.` }] });
    return ephemeral(`Runbook ${kind}`, blocks);
  },
};

export const statusCommand: SlashSubcommand = {
  name: 'status',
  usage: 'status',
  summary: "this channel's open incidents and running diagnoses/operations",
  async run(inv, deps) {
    // Only this channel's: another channel (a private incident channel) is not this one's business.
    const [incidents, running, undelivered, outbound] = await Promise.all([
      listIncidents(deps.store, inv.channelId),
      listRunning(deps.store, inv.channelId),
      listUndelivered(deps.store, inv.channelId),
      listDeliveries(deps.store, inv.channelId),
    ]);
    const inc = incidents.length
      ? incidents
          .slice(-20)
          .map((i) => `• ${i.flapping ? ':warning: *flapping* ' : ''}${escapeMrkdwn(i.title)}${i.cluster ? ` (${escapeMrkdwn(i.cluster)})` : ''} since ${i.openedAt}`)
          .join('\n')
      : 'none';
    const run = running.length
      ? running
          .slice(-20)
          .map((a) => `• ${escapeMrkdwn(a.title)} — started ${a.startedAt}${a.userId ? ` by <@${a.userId}>` : ''} (\`${a.correlationId}\`)`)
          .join('\n')
      : 'none';
    const blocks: KnownBlock[] = [
      { type: 'section', text: { type: 'mrkdwn', text: clip(`*Open incidents in this channel (${incidents.length}):*\n${inc}`, SLACK_LIMITS.sectionText) } },
      { type: 'section', text: { type: 'mrkdwn', text: clip(`*Running from this channel (${running.length}):*\n${run}`, SLACK_LIMITS.sectionText) } },
    ];
    // Messages Slack never accepted, so whoever looks knows what they missed and where.
    if (undelivered.length) {
      const lines = undelivered
        .slice(0, 10)
        .map((u) => `• <#${u.channel}>${u.threadTs ? ' (in a thread)' : ''} at ${u.at}: “${escapeMrkdwn(clip(u.excerpt, 100))}” — ${escapeMrkdwn(clip(u.error, 100))}`)
        .join('\n');
      blocks.push({ type: 'section', text: { type: 'mrkdwn', text: clip(`*:warning: Undelivered Slack messages (${undelivered.length}):*\n${lines}`, SLACK_LIMITS.sectionText) } });
    }
    if (outbound.length) blocks.push(deliveriesBlock(outbound));
    const missed = `${undelivered.length ? `, ${undelivered.length} undelivered messages` : ''}${outbound.length ? `, ${outbound.length} deliveries to other tools not done` : ''}`;
    return ephemeral(`${incidents.length} open incidents, ${running.length} running${missed}`, blocks);
  },
};

/** What other tools (PagerDuty) have not received yet, or never will: the run went on without them. */
function deliveriesBlock(outbound: OutboundDelivery[]): KnownBlock {
  const icon = { pending: ':hourglass_flowing_sand:', retrying: ':repeat:', failed: ':x:' } as const;
  const lines = outbound
    .slice(0, 10)
    .map((d) => `• ${icon[d.state]} ${escapeMrkdwn(clip(d.target, 40))} ${d.state} after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}: “${escapeMrkdwn(clip(d.what, 120))}”${d.error ? ` — ${escapeMrkdwn(clip(d.error, 120))}` : ''}`)
    .join('\n');
  return { type: 'section', text: { type: 'mrkdwn', text: clip(`*:warning: Not delivered to other tools (${outbound.length}):*\n${lines}`, SLACK_LIMITS.sectionText) } };
}

/** `help`: the router's own usage list, over whatever the registry holds. */
export function helpCommand(registry: SlackRegistry): SlashSubcommand {
  return { name: 'help', usage: 'help', summary: 'this list', run: async () => usageReply(registry) };
}

/** The generic commands every deployment has (after the feature commands in `help`). */
export const generalSlack: SlackContribution = { commands: [runbookCommand, statusCommand] };
