// `/kafka audit [cluster]`, ack side: validate, record, enqueue, answer at once.
import { findCluster } from '../config/schema.ts';
import { newJob } from '../queue/job.ts';
import { ephemeral } from '../slack/commands.ts';
import { clip, escapeMrkdwn } from '../slack/limits.ts';
import type { SlackContribution, SlashSubcommand } from '../slack/registry.ts';
import { commandBudget } from '../slack/command-budget.ts';
import { startActivity } from '../state/activity.ts';
import { AUDIT_JOB_KINDS, type AuditJob } from './kinds.ts';

export const auditCommand: SlashSubcommand = {
  name: 'audit',
  usage: 'audit [cluster]',
  summary: 'preventive risk audit: settings and host state that lead to the failures we know (read-only)',
  async run(inv, deps) {
    const [clusterArg, ...extra] = inv.args;
    const usage = 'Usage: `/kafka audit [cluster]`';
    if (extra.length) return ephemeral(`:warning: too many arguments.\n${usage}`);
    const cluster = findCluster(deps.config, clusterArg);
    if (!cluster) {
      const known = deps.config.clusters.map((c) => `\`${c.name}\``).join(', ');
      return ephemeral(`:warning: ${clusterArg ? `unknown cluster "${escapeMrkdwn(clip(clusterArg, 64))}"` : 'no default cluster'}. Known clusters: ${known}\n${usage}`);
    }
    // An audit reads the whole cluster: bounded like a diagnosis, before anything is recorded or queued.
    const over = await commandBudget(deps, { userId: inv.userId, channelId: inv.channelId, cluster: cluster.name }, 'audit');
    if (over) return over;
    const payload: AuditJob = { cluster: cluster.name, origin: { channelId: inv.channelId, userId: inv.userId, teamId: inv.teamId, responseUrl: inv.responseUrl } };
    const job = newJob(AUDIT_JOB_KINDS.audit, payload, inv.correlationId);
    await startActivity(deps.store, {
      id: job.id,
      kind: job.kind,
      title: `audit ${cluster.name}`,
      correlationId: inv.correlationId,
      startedAt: job.enqueuedAt,
      channelId: inv.channelId,
      userId: inv.userId,
    });
    await deps.queue.enqueue(job);
    deps.log.info('audit enqueued', { jobId: job.id, cluster: cluster.name });
    return ephemeral(`:clipboard: Auditing *${escapeMrkdwn(cluster.name)}* for known risks (read-only). The report will appear in this channel. (correlation id \`${inv.correlationId}\`)`);
  },
};

export const auditSlack: SlackContribution = { commands: [auditCommand] };
