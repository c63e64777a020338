// `/kafka diagnose` and `/kafka can-restart`, ack side: validate, record the
// activity, enqueue, answer at once. The worker does the slow part
// (lib/diagnose/jobs.ts).
import { CLUSTER_NAME, findCluster, type Config } from '../config/schema.ts';
import { TOPIC_NAME_RULE, isTopicName, parseBrokerId } from '../kafka/names.ts';
import { newJob } from '../queue/job.ts';
import { ephemeral } from '../slack/commands.ts';
import { clip, escapeMrkdwn } from '../slack/limits.ts';
import type { SlackContribution, SlashSubcommand } from '../slack/registry.ts';
import { enqueueTracked } from '../slack/enqueue.ts';
import { commandBudget } from '../slack/command-budget.ts';
import { DIAGNOSE_JOB_KINDS, type CanRestartJob, type DiagnoseJob } from './kinds.ts';

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
  if (topicArg !== undefined && !isTopicName(topicArg)) return { error: `"${clip(topicArg, 64)}" is not a valid topic name (${TOPIC_NAME_RULE})` };
  const cluster = findCluster(config, clusterArg);
  if (!cluster) {
    return {
      error: clusterArg
        ? `unknown cluster "${clip(clusterArg, 64)}". Known clusters: ${clusterNames(config)}`
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
    // The error quotes what the user typed: escaped, so it cannot mention or link.
    if ('error' in parsed) return ephemeral(`:warning: ${escapeMrkdwn(parsed.error)}\nUsage: \`/kafka diagnose [cluster] [topic]\``);
    // Bounded per user, channel and cluster before anything is recorded or queued.
    const over = await commandBudget(deps, { userId: inv.userId, channelId: inv.channelId, cluster: parsed.cluster }, 'diagnose');
    if (over) return over;
    const payload: DiagnoseJob = {
      cluster: parsed.cluster,
      ...(parsed.topic ? { topic: parsed.topic } : {}),
      origin: { channelId: inv.channelId, userId: inv.userId, teamId: inv.teamId, responseUrl: inv.responseUrl },
    };
    const job = newJob(DIAGNOSE_JOB_KINDS.diagnose, payload, inv.correlationId);
    const what = `${parsed.cluster}${parsed.topic ? ` / ${parsed.topic}` : ''}`;
    const refused = await enqueueTracked(deps, job, { title: clip(`diagnose ${what}`, ACTIVITY_TITLE_MAX), channelId: inv.channelId, userId: inv.userId });
    if (refused) return refused;
    deps.log.info('diagnosis enqueued', { jobId: job.id, cluster: parsed.cluster, topic: parsed.topic });
    return ephemeral(`:mag: Diagnosing *${escapeMrkdwn(what)}*. Progress and findings will appear in a thread in this channel. (correlation id \`${inv.correlationId}\`)`);
  },
};

/** `transactions [topic] [cluster]`: each word is the cluster if one is named so, else the topic. */
export function parseTransactionsArgs(args: string[], config: Config): { cluster: string; topic?: string } | { error: string } {
  if (args.length > 2) return { error: 'too many arguments: `/kafka transactions [topic] [cluster]`' };
  const clusterWord = args.find((w) => findCluster(config, w) !== undefined && findCluster(config, w)?.name === w);
  const rest = args.filter((w) => w !== clusterWord);
  if (rest.length > 1) return { error: `"${clip(rest[1]!, 64)}" is not a configured cluster. Known clusters: ${clusterNames(config)}` };
  return parseDiagnoseArgs([...(clusterWord ? [clusterWord] : []), ...rest], config);
}

export const transactionsCommand: SlashSubcommand = {
  name: 'transactions',
  usage: 'transactions [topic] [cluster]',
  summary: 'open, hanging and stalled transactions (KIP-664) of a cluster or topic; a hanging one gets an abort plan button',
  async run(inv, deps) {
    const parsed = parseTransactionsArgs(inv.args, deps.config);
    if ('error' in parsed) return ephemeral(`:warning: ${escapeMrkdwn(parsed.error)}\nUsage: \`/kafka transactions [topic] [cluster]\``);
    const over = await commandBudget(deps, { userId: inv.userId, channelId: inv.channelId, cluster: parsed.cluster }, 'transactions');
    if (over) return over;
    const payload: DiagnoseJob = {
      cluster: parsed.cluster,
      ...(parsed.topic ? { topic: parsed.topic } : {}),
      focus: 'transactions',
      origin: { channelId: inv.channelId, userId: inv.userId, teamId: inv.teamId, responseUrl: inv.responseUrl },
    };
    const job = newJob(DIAGNOSE_JOB_KINDS.diagnose, payload, inv.correlationId);
    const what = `${parsed.cluster}${parsed.topic ? ` / ${parsed.topic}` : ''}`;
    const refused = await enqueueTracked(deps, job, { title: clip(`transactions ${what}`, ACTIVITY_TITLE_MAX), channelId: inv.channelId, userId: inv.userId });
    if (refused) return refused;
    deps.log.info('transactions check enqueued', { jobId: job.id, cluster: parsed.cluster, topic: parsed.topic });
    return ephemeral(`:mag: Checking the transactions of *${escapeMrkdwn(what)}*. Findings will appear in a thread in this channel. (correlation id \`${inv.correlationId}\`)`);
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
    const brokerId = parseBrokerId(brokerArg);
    if (brokerId === null) {
      return ephemeral(`:warning: "${escapeMrkdwn(clip(brokerArg, 32))}" is not a broker id (a non-negative number).\n${usage}`);
    }
    const cluster = findCluster(deps.config, clusterArg);
    if (!cluster) return ephemeral(`:warning: ${clusterArg ? `unknown cluster "${escapeMrkdwn(clip(clusterArg, 64))}"` : 'no default cluster'}. Known clusters: ${clusterNames(deps.config)}\n${usage}`);
    const over = await commandBudget(deps, { userId: inv.userId, channelId: inv.channelId, cluster: cluster.name }, 'can-restart');
    if (over) return over;
    const payload: CanRestartJob = {
      cluster: cluster.name,
      brokerId,
      origin: { channelId: inv.channelId, userId: inv.userId, teamId: inv.teamId, responseUrl: inv.responseUrl },
    };
    const job = newJob(DIAGNOSE_JOB_KINDS.canRestart, payload, inv.correlationId);
    const refused = await enqueueTracked(deps, job, { title: `can-restart broker ${brokerArg} on ${cluster.name}`, channelId: inv.channelId, userId: inv.userId });
    if (refused) return refused;
    deps.log.info('can-restart enqueued', { jobId: job.id, cluster: cluster.name, brokerId: payload.brokerId });
    return ephemeral(`:hourglass_flowing_sand: Checking whether broker ${brokerArg} of *${escapeMrkdwn(cluster.name)}* can restart safely… (correlation id \`${inv.correlationId}\`)`);
  },
};

/** What diagnosis adds to the Slack app. */
export const diagnoseSlack: SlackContribution = { commands: [diagnoseCommand, canRestartCommand, transactionsCommand] };
