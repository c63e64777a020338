// The Slack entry point: our own signature, freshness and replay checks, then
// a Bolt app on AwsLambdaReceiver whose listeners only validate, authorize,
// record, enqueue and ack. This module (and everything it imports) is on the
// 3-second path: no kafkajs, no diagnosis, no SSM client here.
import { randomUUID } from 'node:crypto';
import { App, AwsLambdaReceiver, LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { HttpEvent, HttpResult, LambdaContext } from '../runtime/lambda-types.ts';
import { header, rawBody } from '../runtime/lambda-types.ts';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import { REFUSAL_TEXT, WORKSPACE_REFUSAL_TEXT, authorize, cachedGroupMembers, type AuthzDecision, type GroupMembers } from './authz.ts';
import { ephemeral, helpCommand, usageReply } from './commands.ts';
import { SlackRegistry, type AckDeps, type CommandReply, type SlackContribution } from './registry.ts';
import { SIGNATURE_TOLERANCE_SECONDS, verifySlackSignature } from './verify.ts';

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
  registry?: SlackRegistry;
  nowSeconds?: () => number;
}

export type SlackHandler = (event: HttpEvent, context?: LambdaContext) => Promise<HttpResult>;

const REPLAY_KEY_TTL_SECONDS = 2 * SIGNATURE_TOLERANCE_SECONDS + 60;

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

/** A refusal that says why politely: another workspace, or not an allowed person or channel. */
const refusalText = (d: AuthzDecision): string => (!d.allowed && /workspace/.test(d.reason) ? WORKSPACE_REFUSAL_TEXT : REFUSAL_TEXT);

const unauthorized = (reason: string): HttpResult => ({ statusCode: 401, headers: { 'content-type': 'text/plain' }, body: reason });

/** `help` first, then every feature's commands and buttons: the registry the handler answers from. */
export function registerFeatures(registry: SlackRegistry, features: SlackContribution[]): SlackRegistry {
  registry.registerCommand(helpCommand(registry));
  for (const f of features) {
    for (const c of f.commands ?? []) registry.registerCommand(c);
    for (const a of f.actions ?? []) registry.registerAction(a);
  }
  return registry;
}

export function createSlackHandler(deps: SlackAppDeps): SlackHandler {
  const registry = deps.registry ?? new SlackRegistry();
  const now = deps.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const log = deps.log;

  const receiver = new AwsLambdaReceiver({
    signingSecret: deps.signingSecret,
    logger: boltLogger(log),
  });
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
  const groups =
    deps.groups ??
    cachedGroupMembers(async (usergroup) => {
      const out = await app.client.usergroups.users.list({ token: deps.botToken, usergroup });
      return out.users ?? [];
    });
  const listGroup: ListGroupMembers = async (usergroup) => (await app.client.usergroups.users.list({ token: deps.botToken, usergroup })).users ?? [];
  registerFeatures(registry, deps.features({ listGroup }));
  const ackDeps: AckDeps = { config: deps.config, queue: deps.queue, store: deps.store, log };

  app.command(/^\/kafka/, async ({ command, ack }) => {
    const correlationId = newCorrelationId();
    const reqLog = log.with({ correlationId, userId: command.user_id, channelId: command.channel_id });
    const decision = await authorize(
      { userId: command.user_id, channelId: command.channel_id, teamId: command.team_id, enterpriseId: command.enterprise_id },
      deps.config.slack,
      groups,
    );
    if (!decision.allowed) {
      reqLog.warn('refused slack command', { reason: decision.reason, teamId: command.team_id, command: command.command, text: command.text.slice(0, 200) });
      await ack(ephemeral(refusalText(decision)));
      return;
    }
    const [name, ...args] = command.text.trim().split(/\s+/).filter(Boolean);
    let reply: CommandReply;
    if (!name) reply = usageReply(registry);
    else {
      const sub = registry.command(name.toLowerCase());
      if (!sub) reply = usageReply(registry, `Unknown command "${name.slice(0, 40)}".`);
      else {
        try {
          reqLog.info('slack command', { subcommand: sub.name, args: args.slice(0, 5) });
          reply = await sub.run(
            {
              args,
              userId: command.user_id,
              channelId: command.channel_id,
              teamId: command.team_id,
              responseUrl: command.response_url,
              triggerId: command.trigger_id,
              correlationId,
            },
            { ...ackDeps, log: reqLog },
          );
        } catch (err) {
          reqLog.error('slack command failed', { subcommand: sub.name, error: errorMessage(err) });
          reply = ephemeral(`:x: Sorry, that failed on my side. Correlation id \`${correlationId}\` for the logs.`);
        }
      }
    }
    await ack(reply);
  });

  app.action(/.+/, async ({ ack, body, action, respond }) => {
    await ack();
    const correlationId = newCorrelationId();
    const actionId = 'action_id' in action ? action.action_id : '';
    const value = 'value' in action && typeof action.value === 'string' ? action.value : undefined;
    const b = body as { user?: { id?: string; team_id?: string }; channel?: { id?: string }; team?: { id?: string } | null; enterprise?: { id?: string } | null; message?: { ts?: string }; response_url?: string };
    const userId = b.user?.id ?? '';
    const channelId = b.channel?.id ?? '';
    const actionTs = 'action_ts' in action ? String(action.action_ts) : undefined;
    const reqLog = log.with({ correlationId, userId, channelId, actionId });
    const decision = await authorize({ userId, channelId, teamId: b.team?.id, userTeamId: b.user?.team_id, enterpriseId: b.enterprise?.id }, deps.config.slack, groups);
    if (!decision.allowed) {
      reqLog.warn('refused slack action', { reason: decision.reason });
      await respond({ response_type: 'ephemeral', replace_original: false, text: refusalText(decision) });
      return;
    }
    const handler = registry.action(actionId);
    if (!handler) {
      reqLog.warn('no handler for slack action');
      return;
    }
    // Slack does not retry clicks, but double clicks and replays happen: one per (message, action_ts, action).
    const dedupeKey = `slack-action:${b.message?.ts ?? ''}:${actionTs ?? ''}:${actionId}`;
    if (actionTs && !(await deps.store.create(dedupeKey, { userId }, 3600))) {
      reqLog.info('duplicate slack action ignored');
      return;
    }
    try {
      const reply = await handler.run(
        { actionId, value, userId, channelId, messageTs: b.message?.ts, actionTs, responseUrl: b.response_url, correlationId, payload: body },
        { ...ackDeps, log: reqLog },
      );
      if (reply) await respond({ ...reply, replace_original: false });
    } catch (err) {
      reqLog.error('slack action failed', { error: errorMessage(err) });
    }
  });

  const boltHandler = receiver.toHandler();

  return async (event, context) => {
    const body = rawBody(event);
    const verdict = verifySlackSignature({
      signingSecret: deps.signingSecret,
      rawBody: body,
      signature: header(event, 'x-slack-signature'),
      timestamp: header(event, 'x-slack-request-timestamp'),
      nowSeconds: now(),
    });
    if (!verdict.ok) {
      log.warn('rejected slack request', { reason: verdict.reason, path: event.rawPath });
      return unauthorized(verdict.reason);
    }
    // Within the 5-minute window a captured request would verify again: the
    // first delivery of each signature wins a conditional write, repeats lose.
    let firstDelivery: boolean;
    try {
      firstDelivery = await deps.store.create(`slack-sig:${verdict.signature}`, { ts: verdict.timestamp }, REPLAY_KEY_TTL_SECONDS);
    } catch (err) {
      // The store's own retries (throttling) are spent: refuse rather than skip the replay check.
      log.error('replay check unavailable; request refused', { path: event.rawPath, error: errorMessage(err) });
      return { statusCode: 503, headers: { 'content-type': 'text/plain' }, body: 'state store unavailable, try again' };
    }
    if (!firstDelivery) {
      log.warn('rejected replayed slack request', { path: event.rawPath, timestamp: verdict.timestamp });
      return unauthorized('replayed request');
    }
    // Bolt parses forms only for the exact media type and decodes base64 as
    // ASCII; hand it a decoded body and a bare Content-Type.
    const contentType = (header(event, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(event.headers)) if (v !== undefined && k.toLowerCase() !== 'content-type') headers[k] = v;
    headers['Content-Type'] = contentType;
    if (contentType !== 'application/x-www-form-urlencoded' && contentType !== 'application/json') {
      return { statusCode: 415, body: `unsupported content type "${contentType}"` };
    }
    try {
      const normalized = { ...event, headers, body, isBase64Encoded: false } as unknown as Parameters<typeof boltHandler>[0];
      return (await boltHandler(normalized, context)) as HttpResult;
    } catch (err) {
      log.error('slack request could not be processed', { error: errorMessage(err) });
      return { statusCode: 400, body: 'malformed request body' };
    }
  };
}
