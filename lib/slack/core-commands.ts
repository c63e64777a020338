// The core `/kafka` subcommands. Each one validates, records, enqueues and
// answers at once; the worker does the slow part.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { KnownBlock } from '@slack/types';
import { CLUSTER_NAME, TOPIC_NAME, findCluster, type Config } from '../config/schema.ts';
import { newJob } from '../queue/job.ts';
import { JOB_KINDS, type CanRestartJob, type DiagnoseJob } from '../diagnose/kinds.ts';
import { listIncidents, listRunning, startActivity } from '../state/activity.ts';
import { SLACK_LIMITS, clip, escapeMrkdwn } from './limits.ts';
import type { CommandReply, SlackRegistry, SlashSubcommand } from './registry.ts';

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

function clusterNames(config: Config): string {
  return config.clusters.map((c) => `\`${c.name}\``).join(', ');
}

/** `diagnose [cluster] [topic]`: one word is a cluster if one is named so, else a topic on the default cluster. */
export function parseDiagnoseArgs(args: string[], config: Config): { cluster: string; topic?: string } | { error: string } {
  if (args.length > 2) return { error: 'too many arguments: `/kafka diagnose [cluster] [topic]`' };
  let clusterArg: string | undefined;
  let topicArg: string | undefined;
  if (args.length === 2) [clusterArg, topicArg] = args;
  else if (args.length === 1) {
    const [word] = args as [string];
    if (findCluster(config, word)) clusterArg = word;
    else topicArg = word;
  }
  if (clusterArg !== undefined && !CLUSTER_NAME.test(clusterArg)) return { error: `"${clip(clusterArg, 64)}" is not a valid cluster name` };
  if (topicArg !== undefined && !TOPIC_NAME.test(topicArg)) return { error: `"${clip(topicArg, 64)}" is not a valid topic name (letters, digits, ".", "_", "-")` };
  const cluster = findCluster(config, clusterArg);
  if (!cluster) {
    return {
      error: clusterArg
        ? `unknown cluster "${clusterArg}". Known clusters: ${clusterNames(config)}`
        : `several clusters are configured and none is the default: name one of ${clusterNames(config)}`,
    };
  }
  return topicArg ? { cluster: cluster.name, topic: topicArg } : { cluster: cluster.name };
}

const ACTIVITY_TITLE_MAX = 120;

export const diagnoseCommand: SlashSubcommand = {
  name: 'diagnose',
  usage: 'diagnose [cluster] [topic]',
  summary: 'check a cluster (and one topic) now; findings arrive in a thread',
  async run(inv, deps) {
    const parsed = parseDiagnoseArgs(inv.args, deps.config);
    if ('error' in parsed) return ephemeral(`:warning: ${parsed.error}\nUsage: \`/kafka diagnose [cluster] [topic]\``);
    const payload: DiagnoseJob = {
      cluster: parsed.cluster,
      ...(parsed.topic ? { topic: parsed.topic } : {}),
      origin: { channelId: inv.channelId, userId: inv.userId, teamId: inv.teamId, responseUrl: inv.responseUrl },
    };
    const job = newJob(JOB_KINDS.diagnose, payload, inv.correlationId);
    const what = `${parsed.cluster}${parsed.topic ? ` / ${parsed.topic}` : ''}`;
    await startActivity(deps.store, {
      id: job.id,
      kind: job.kind,
      title: clip(`diagnose ${what}`, ACTIVITY_TITLE_MAX),
      correlationId: inv.correlationId,
      startedAt: job.enqueuedAt,
      channelId: inv.channelId,
      userId: inv.userId,
    });
    await deps.queue.enqueue(job);
    deps.log.info('diagnosis enqueued', { jobId: job.id, cluster: parsed.cluster, topic: parsed.topic });
    return ephemeral(`:mag: Diagnosing *${escapeMrkdwn(what)}*. Progress and findings will appear in a thread in this channel. (correlation id \`${inv.correlationId}\`)`);
  },
};

export const canRestartCommand: SlashSubcommand = {
  name: 'can-restart',
  usage: 'can-restart <broker-id> [cluster]',
  summary: 'would restarting this broker now take partitions offline or below min ISR?',
  async run(inv, deps) {
    const [brokerArg, clusterArg, ...extra] = inv.args;
    const usage = 'Usage: `/kafka can-restart <broker-id> [cluster]`';
    if (!brokerArg || extra.length) return ephemeral(`:warning: name exactly one broker id.\n${usage}`);
    if (!/^\d{1,10}$/.test(brokerArg) || Number(brokerArg) > 2_147_483_647) {
      return ephemeral(`:warning: "${escapeMrkdwn(clip(brokerArg, 32))}" is not a broker id (a non-negative number).\n${usage}`);
    }
    const cluster = findCluster(deps.config, clusterArg);
    if (!cluster) return ephemeral(`:warning: ${clusterArg ? `unknown cluster "${escapeMrkdwn(clip(clusterArg, 64))}"` : 'no default cluster'}. Known clusters: ${clusterNames(deps.config)}\n${usage}`);
    const payload: CanRestartJob = {
      cluster: cluster.name,
      brokerId: Number(brokerArg),
      origin: { channelId: inv.channelId, userId: inv.userId, teamId: inv.teamId, responseUrl: inv.responseUrl },
    };
    const job = newJob(JOB_KINDS.canRestart, payload, inv.correlationId);
    await startActivity(deps.store, {
      id: job.id,
      kind: job.kind,
      title: `can-restart broker ${brokerArg} on ${cluster.name}`,
      correlationId: inv.correlationId,
      startedAt: job.enqueuedAt,
      channelId: inv.channelId,
      userId: inv.userId,
    });
    await deps.queue.enqueue(job);
    deps.log.info('can-restart enqueued', { jobId: job.id, cluster: cluster.name, brokerId: payload.brokerId });
    return ephemeral(`:hourglass_flowing_sand: Checking whether broker ${brokerArg} of *${escapeMrkdwn(cluster.name)}* can restart safely… (correlation id \`${inv.correlationId}\`)`);
  },
};

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
  summary: 'open incidents and running diagnoses/operations',
  async run(_inv, deps) {
    const [incidents, running] = await Promise.all([listIncidents(deps.store), listRunning(deps.store)]);
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
      { type: 'section', text: { type: 'mrkdwn', text: clip(`*Open incidents (${incidents.length}):*\n${inc}`, SLACK_LIMITS.sectionText) } },
      { type: 'section', text: { type: 'mrkdwn', text: clip(`*Running (${running.length}):*\n${run}`, SLACK_LIMITS.sectionText) } },
    ];
    return ephemeral(`${incidents.length} open incidents, ${running.length} running`, blocks);
  },
};

export function registerCoreCommands(registry: SlackRegistry): void {
  const help: SlashSubcommand = {
    name: 'help',
    usage: 'help',
    summary: 'this list',
    run: async () => usageReply(registry),
  };
  for (const c of [help, diagnoseCommand, canRestartCommand, runbookCommand, statusCommand]) {
    if (!registry.command(c.name)) registry.registerCommand(c);
  }
}
