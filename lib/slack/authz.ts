// Who may use the bot. A request must come from an allowed channel (when
// channels are configured) and from an allowed user or a member of the
// allowed user group (when either is configured).
import type { Config } from '../config/schema.ts';

export interface Requester {
  userId: string;
  channelId: string;
  /** The workspace the request came from (slash command team_id, payload team.id). */
  teamId?: string | undefined;
  /** The clicking user's own workspace (payload user.team_id); differs for Slack Connect guests. */
  userTeamId?: string | undefined;
  enterpriseId?: string | undefined;
}

export type AuthzDecision = { allowed: true } | { allowed: false; reason: string };

/** Members of a Slack user group; cached because usergroups.users.list is rate-limited. */
export interface GroupMembers {
  has(groupId: string, userId: string): Promise<boolean>;
}

/**
 * The workspace check, before anything else: the request's team (and the
 * user's home team, when Slack sends it) must be allowed, or the request must
 * come from an allowed Enterprise Grid organisation.
 */
export function workspaceAllowed(req: Requester, slack: Config['slack']): AuthzDecision {
  const checking = slack.allowedTeams.length > 0 || slack.allowedEnterprises.length > 0;
  if (!checking && (slack.allowAnyWorkspace || slack.allowEveryone)) return { allowed: true };
  if (req.enterpriseId && slack.allowedEnterprises.includes(req.enterpriseId)) return { allowed: true };
  const teams = [req.teamId, req.userTeamId].filter((t): t is string => Boolean(t));
  if (teams.length === 0) return { allowed: false, reason: 'request names no workspace' };
  const foreign = teams.find((t) => !slack.allowedTeams.includes(t));
  return foreign ? { allowed: false, reason: `workspace ${foreign} not allowed` } : { allowed: true };
}

export async function authorize(req: Requester, slack: Config['slack'], groups: GroupMembers): Promise<AuthzDecision> {
  const workspace = workspaceAllowed(req, slack);
  if (!workspace.allowed) return workspace;
  if (slack.allowEveryone) return { allowed: true };
  if (slack.allowedChannels.length && !slack.allowedChannels.includes(req.channelId)) {
    return { allowed: false, reason: 'channel not allowed' };
  }
  const usersConfigured = slack.allowedUsers.length > 0 || slack.allowedUserGroup !== undefined;
  if (!usersConfigured) return { allowed: true };
  if (slack.allowedUsers.includes(req.userId)) return { allowed: true };
  if (slack.allowedUserGroup) {
    try {
      if (await groups.has(slack.allowedUserGroup, req.userId)) return { allowed: true };
    } catch (err) {
      // Fail closed: if Slack cannot tell us, the answer is no.
      return { allowed: false, reason: `user group lookup failed: ${(err as Error).message}` };
    }
  }
  return { allowed: false, reason: 'user not allowed' };
}

/** usergroups.users.list behind a short cache. */
export function cachedGroupMembers(
  list: (groupId: string) => Promise<string[]>,
  ttlMs = 5 * 60 * 1000,
  now: () => number = Date.now,
): GroupMembers {
  const cache = new Map<string, { at: number; members: Set<string> }>();
  return {
    async has(groupId, userId) {
      let entry = cache.get(groupId);
      if (!entry || now() - entry.at > ttlMs) {
        entry = { at: now(), members: new Set(await list(groupId)) };
        cache.set(groupId, entry);
      }
      return entry.members.has(userId);
    },
  };
}

export const WORKSPACE_REFUSAL_TEXT =
  "Sorry, I only answer people of the workspace I was set up for, so I can't take requests from here. If you need me, ask the team that runs this Kafka cluster.";

export const REFUSAL_TEXT =
  "Sorry, I can't help you here: this bot only answers in its configured channels and to its configured people. Ask your Kafka on-call lead for access if you need it.";
