// Who may use the bot. A request must come from an allowed channel (when
// channels are configured) and from an allowed user or a member of the
// allowed user group (when either is configured).
import type { Config } from '../config/schema.ts';

export interface Requester {
  userId: string;
  channelId: string;
  /** The workspace the request came through (slash command team_id, interactivity team.id). */
  teamId?: string | undefined;
  /** The user's own workspace (interactivity user.team_id); differs from teamId for a Slack Connect guest. */
  userTeamId?: string | undefined;
  /** The payload's organisation: logged, never trusted for the workspace check (a guest's payload names the host's). */
  enterpriseId?: string | undefined;
}

export type AuthzDecision = { allowed: true } | { allowed: false; reason: string };

/** Members of a Slack user group; cached because usergroups.users.list is rate-limited. */
export interface GroupMembers {
  has(groupId: string, userId: string): Promise<boolean>;
}

/** Which Enterprise Grid organisation a workspace belongs to (team.info), undefined for none. */
export interface WorkspaceDirectory {
  enterpriseOf(teamId: string): Promise<string | undefined>;
}

/**
 * The workspace check, before anything else. Every workspace the request
 * names (the one it came through and the user's own) must be allowed: listed
 * in allowedTeams, or a workspace of an allowed Enterprise Grid organisation
 * as Slack says when asked about that workspace (team.info). The payload's
 * own enterprise is not enough: a Slack Connect guest's request carries the
 * host's enterprise beside the guest's home workspace.
 */
export async function workspaceAllowed(req: Requester, slack: Config['slack'], directory?: WorkspaceDirectory): Promise<AuthzDecision> {
  const checking = slack.allowedTeams.length > 0 || slack.allowedEnterprises.length > 0;
  if (!checking && (slack.allowAnyWorkspace || slack.allowEveryone)) return { allowed: true };
  const teams = [...new Set([req.teamId, req.userTeamId].filter((t): t is string => Boolean(t)))];
  if (teams.length === 0) return { allowed: false, reason: 'request names no workspace' };
  for (const team of teams) {
    if (slack.allowedTeams.includes(team) || slack.allowedEnterprises.includes(team)) continue;
    if (slack.allowedEnterprises.length === 0) return { allowed: false, reason: `workspace ${team} not allowed` };
    let enterprise: string | undefined;
    try {
      enterprise = await directory?.enterpriseOf(team);
    } catch (err) {
      // Fail closed: if Slack cannot tell us where the workspace belongs, the answer is no.
      return { allowed: false, reason: `workspace ${team} not allowed: its organisation could not be looked up (${(err as Error).message})` };
    }
    if (!enterprise || !slack.allowedEnterprises.includes(enterprise)) {
      return { allowed: false, reason: `workspace ${team} not allowed (organisation ${enterprise ?? 'none'})` };
    }
  }
  return { allowed: true };
}

export async function authorize(req: Requester, slack: Config['slack'], groups: GroupMembers, directory?: WorkspaceDirectory): Promise<AuthzDecision> {
  const workspace = await workspaceAllowed(req, slack, directory);
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

/** team.info behind a long cache: a workspace does not change organisation within the hour. Failures are not cached. */
export function cachedWorkspaceDirectory(
  lookup: (teamId: string) => Promise<string | undefined>,
  ttlMs = 60 * 60 * 1000,
  now: () => number = Date.now,
): WorkspaceDirectory {
  const cache = new Map<string, { at: number; enterprise: string | undefined }>();
  return {
    async enterpriseOf(teamId) {
      const hit = cache.get(teamId);
      if (hit && now() - hit.at <= ttlMs) return hit.enterprise;
      const enterprise = await lookup(teamId);
      cache.set(teamId, { at: now(), enterprise });
      return enterprise;
    },
  };
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
