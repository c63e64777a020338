// Who is asking, and may they: Bolt middleware that runs before every
// listener, for every kind of request Slack sends (slash commands, buttons and
// other interactivity, events). A refusal answers with the same polite words
// wherever the request type lets us answer, and nothing reaches a listener.
import type { AnyMiddlewareArgs, Middleware, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Config } from '../config/schema.ts';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { StateStore } from '../state/state-store.ts';
import { REFUSAL_TEXT, WORKSPACE_REFUSAL_TEXT, authorize, type AuthzDecision, type GroupMembers, type Requester, type WorkspaceDirectory } from './authz.ts';
import { ephemeral } from './commands.ts';

export type RequestKind = 'command' | 'interaction' | 'event' | 'other';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/**
 * The requester as each payload shape states it (Slack's request payloads;
 * Bolt's App buildSource reads the same fields):
 * - slash command: form fields user_id, channel_id, team_id, enterprise_id;
 * - interactivity (block_actions, view_submission, shortcuts, options): user.id
 *   and user.team_id (the user's own workspace: a Slack Connect guest's differs),
 *   team.id (null on an org-wide install), channel.id or container.channel_id,
 *   enterprise.id or team.enterprise_id;
 * - Events API: team_id, enterprise_id, event.user, event.user_team.
 */
export function requesterOf(body: Obj): { kind: RequestKind; requester: Requester } {
  if (str(body.command) !== undefined) {
    return {
      kind: 'command',
      requester: { userId: str(body.user_id) ?? '', channelId: str(body.channel_id) ?? '', teamId: str(body.team_id), enterpriseId: str(body.enterprise_id) },
    };
  }
  if (body.type === 'event_callback') {
    const event = obj(body.event) ?? {};
    const user = typeof event.user === 'string' ? event.user : str(obj(event.user)?.id);
    return {
      kind: 'event',
      requester: { userId: user ?? '', channelId: str(event.channel) ?? '', teamId: str(body.team_id), userTeamId: str(event.user_team), enterpriseId: str(body.enterprise_id) },
    };
  }
  const user = obj(body.user);
  if (user) {
    const team = obj(body.team);
    return {
      kind: 'interaction',
      requester: {
        userId: str(user.id) ?? '',
        channelId: str(obj(body.channel)?.id) ?? str(obj(body.container)?.channel_id) ?? '',
        teamId: str(team?.id),
        userTeamId: str(user.team_id),
        enterpriseId: str(obj(body.enterprise)?.id) ?? str(team?.enterprise_id),
      },
    };
  }
  return { kind: 'other', requester: { userId: '', channelId: '' } };
}

/** A refusal that says why politely: another workspace, or not an allowed person or channel. */
export const refusalText = (d: AuthzDecision): string => (!d.allowed && /workspace/.test(d.reason) ? WORKSPACE_REFUSAL_TEXT : REFUSAL_TEXT);

export interface AccessDeps {
  config: Config;
  groups: GroupMembers;
  workspaces: WorkspaceDirectory;
  log: Log;
  newCorrelationId: () => string;
}

/** The requester, the correlation id and a logger with both, for the listeners (Bolt's context). */
export interface AccessContext {
  requester: Requester;
  correlationId: string;
  reqLog: Log;
}

export function accessOf(context: Obj): AccessContext {
  return context.access as AccessContext;
}

/** Global middleware: authorize every request before any listener; refused ones end here. */
export function authorizationMiddleware(deps: AccessDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const body = args.body as unknown as Obj;
    const { kind, requester } = requesterOf(body);
    const correlationId = deps.newCorrelationId();
    const reqLog = deps.log.with({ correlationId, userId: requester.userId, channelId: requester.channelId });
    const decision = await authorize(requester, deps.config.slack, deps.groups, deps.workspaces);
    if (decision.allowed) {
      const access: AccessContext = { requester, correlationId, reqLog };
      args.context.access = access;
      await args.next();
      return;
    }
    reqLog.warn(`refused slack ${kind}`, {
      reason: decision.reason,
      teamId: requester.teamId,
      userTeamId: requester.userTeamId,
      enterpriseId: requester.enterpriseId,
      ...(kind === 'command' ? { command: str(body.command), text: (str(body.text) ?? '').slice(0, 200) } : {}),
    });
    const text = refusalText(decision);
    const ack = 'ack' in args && typeof args.ack === 'function' ? (args.ack as (r?: unknown) => Promise<void>) : undefined;
    if (kind === 'command') {
      await ack?.(ephemeral(text));
      return;
    }
    await ack?.();
    const respond = 'respond' in args && typeof args.respond === 'function' ? (args.respond as SlackActionMiddlewareArgs['respond']) : undefined;
    if (!respond) return;
    try {
      await respond({ response_type: 'ephemeral', replace_original: false, text });
    } catch (err) {
      reqLog.warn('could not tell a refused requester why', { error: errorMessage(err) });
    }
  };
}

/** Slack does not retry clicks, but double clicks happen: one per (message, action_ts, action_id). */
export function clickDedupe(store: StateStore): Middleware<SlackActionMiddlewareArgs> {
  return async ({ ack, body, action, context, next }) => {
    const actionId = 'action_id' in action ? action.action_id : '';
    const actionTs = 'action_ts' in action ? String(action.action_ts) : undefined;
    const messageTs = (body as { message?: { ts?: string } }).message?.ts ?? '';
    if (actionTs && !(await store.create(`slack-action:${messageTs}:${actionTs}:${actionId}`, { userId: body.user.id }, 3600))) {
      accessOf(context).reqLog.info('duplicate slack action ignored', { actionId });
      await ack();
      return;
    }
    await next();
  };
}
