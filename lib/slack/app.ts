// The Slack entry point: a Bolt app behind our own receiver (receiver.ts:
// signature, freshness and replay checked once), authorization and click
// dedupe as Bolt middleware (access.ts), and two listeners that only route to
// the registry's commands and buttons, which validate, record, enqueue and
// ack. This module (and everything it imports) is on the 3-second path: no
// kafkajs, no diagnosis, no SSM client here.
import { randomUUID } from 'node:crypto';
import { App, LogLevel, type Logger as BoltLogger, type SlashCommand } from '@slack/bolt';
import type { HttpEvent, HttpResult, LambdaContext } from '../runtime/lambda-types.ts';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import { cachedGroupMembers, cachedWorkspaceDirectory, type GroupMembers, type WorkspaceDirectory } from './authz.ts';
import { accessOf, authorizationMiddleware, clickDedupe } from './access.ts';
import { ephemeral, helpCommand, usageReply } from './commands.ts';
import { clip, escapeMrkdwn } from './limits.ts';
import { LambdaSlackReceiver } from './receiver.ts';
import { SlackRegistry, type AckDeps, type CommandReply, type SlackContribution } from './registry.ts';

/** Slack's user-group lookup (usergroups.users.list), for features that need it (approver groups). */
export type ListGroupMembers = (usergroup: string) => Promise<string[]>;

export interface SlackAppDeps extends AckDeps {
  /** What the features add (commands, buttons), given the app's own Slack tools: lib/root/slack.ts. */
  features: (tools: { listGroup: ListGroupMembers }) => SlackContribution[];
  signingSecret: string;
  botToken: string;
  /** Web API base URL, e.g. a local stub in tests (SLACK_API_URL). */
  slackApiUrl?: string;
  groups?: GroupMembers;
  /** Which organisation a workspace belongs to (default: team.info, cached). */
  workspaces?: WorkspaceDirectory;
  registry?: SlackRegistry;
  nowSeconds?: () => number;
}

export type SlackHandler = (event: HttpEvent, context?: LambdaContext) => Promise<HttpResult>;

export function newCorrelationId(): string {
  return `kr-${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

function boltLogger(log: Log): BoltLogger {
  let level = LogLevel.WARN;
  const fmt = (msgs: unknown[]) => msgs.map((m) => (typeof m === 'string' ? m : errorMessage(m))).join(' ');
  return {
    debug: () => {},
    info: () => {},
    warn: (...m: unknown[]) => log.warn(`bolt: ${fmt(m)}`),
    error: (...m: unknown[]) => log.error(`bolt: ${fmt(m)}`),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

/** `help` first, then every feature's commands and buttons: the registry the handler answers from. */
export function registerFeatures(registry: SlackRegistry, features: SlackContribution[]): SlackRegistry {
  registry.registerCommand(helpCommand(registry));
  for (const f of features) {
    for (const c of f.commands ?? []) registry.registerCommand(c);
    for (const a of f.actions ?? []) registry.registerAction(a);
  }
  return registry;
}

/** A slash command's reply: usage for none or an unknown one, else the command's own (a failure said as one line with the correlation id). */
async function commandReply(registry: SlackRegistry, command: SlashCommand, correlationId: string, deps: AckDeps): Promise<CommandReply> {
  const reqLog = deps.log;
  const [name, ...args] = command.text.trim().split(/\s+/).filter(Boolean);
  if (!name) return usageReply(registry);
  const sub = registry.command(name.toLowerCase());
  if (!sub) return usageReply(registry, `Unknown command "${escapeMrkdwn(clip(name, 40))}".`);
  try {
    reqLog.info('slack command', { subcommand: sub.name, args: args.slice(0, 5) });
    return await sub.run(
      {
        args,
        userId: command.user_id,
        channelId: command.channel_id,
        teamId: command.team_id,
        responseUrl: command.response_url,
        triggerId: command.trigger_id,
        correlationId,
      },
      deps,
    );
  } catch (err) {
    reqLog.error('slack command failed', { subcommand: sub.name, error: errorMessage(err) });
    return ephemeral(`:x: Sorry, that failed on my side. Correlation id \`${correlationId}\` for the logs.`);
  }
}

export function createSlackHandler(deps: SlackAppDeps): SlackHandler {
  const registry = deps.registry ?? new SlackRegistry();
  const log = deps.log;
  const receiver = new LambdaSlackReceiver({ signingSecret: deps.signingSecret, store: deps.store, log, ...(deps.nowSeconds ? { nowSeconds: deps.nowSeconds } : {}) });
  const app = new App({
    receiver,
    // A custom authorize keeps Bolt from calling auth.test on the ack path.
    authorize: async () => ({ botToken: deps.botToken }),
    logger: boltLogger(log),
    clientOptions: {
      ...(deps.slackApiUrl ? { slackApiUrl: deps.slackApiUrl } : {}),
      retryConfig: { retries: 0 },
      timeout: 2500,
      rejectRateLimitedCalls: true,
    },
  });
  const listGroup: ListGroupMembers = async (usergroup) => (await app.client.usergroups.users.list({ token: deps.botToken, usergroup })).users ?? [];
  const groups = deps.groups ?? cachedGroupMembers(listGroup);
  const workspaces =
    deps.workspaces ??
    cachedWorkspaceDirectory(async (team) => {
      const out = await app.client.team.info({ token: deps.botToken, team });
      return out.team?.enterprise_id || undefined;
    });
  registerFeatures(registry, deps.features({ listGroup }));
  const ackDeps: AckDeps = { config: deps.config, queue: deps.queue, store: deps.store, log, ...(deps.afterAnswer ? { afterAnswer: deps.afterAnswer } : {}) };

  app.use(authorizationMiddleware({ config: deps.config, groups, workspaces, log, newCorrelationId }));

  app.command(/^\/kafka/, async ({ command, ack, context }) => {
    const { correlationId, reqLog } = accessOf(context);
    await ack(await commandReply(registry, command, correlationId, { ...ackDeps, log: reqLog }));
  });

  app.action(/.+/, clickDedupe(deps.store), async ({ ack, body, action, respond, context }) => {
    await ack();
    const { requester, correlationId } = accessOf(context);
    const actionId = 'action_id' in action ? action.action_id : '';
    const value = 'value' in action && typeof action.value === 'string' ? action.value : undefined;
    const actionTs = 'action_ts' in action ? String(action.action_ts) : undefined;
    const b = body as { message?: { ts?: string }; response_url?: string };
    const reqLog = accessOf(context).reqLog.with({ actionId });
    const handler = registry.action(actionId);
    if (!handler) {
      reqLog.warn('no handler for slack action');
      return;
    }
    try {
      const reply = await handler.run(
        { actionId, value, userId: requester.userId, channelId: requester.channelId, messageTs: b.message?.ts, actionTs, responseUrl: b.response_url, correlationId, payload: body },
        { ...ackDeps, log: reqLog },
      );
      if (reply) await respond({ ...reply, replace_original: false });
    } catch (err) {
      reqLog.error('slack action failed', { error: errorMessage(err) });
      // An approver whose click failed must know it did not count (an Approve, a Cancel...).
      await respond({ ...ephemeral(`:x: That click was not recorded: it failed on my side. Please try again. Correlation id \`${correlationId}\` for the logs.`), replace_original: false }).catch(() => undefined);
    }
  });

  return (event, context) => receiver.handle(event, context);
}
