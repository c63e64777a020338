// Who may use the bot. A request must come from an allowed channel (when
// channels are configured) and from an allowed user or a member of the
// allowed user group (when either is configured).
import type { Config } from '../config/schema.ts';

export interface Requester {
  userId: string;
  channelId: string;
}

export type AuthzDecision = { allowed: true } | { allowed: false; reason: string };

/** Members of a Slack user group; cached because usergroups.users.list is rate-limited. */
export interface GroupMembers {
  has(groupId: string, userId: string): Promise<boolean>;
}

export async function authorize(req: Requester, slack: Config['slack'], groups: GroupMembers): Promise<AuthzDecision> {
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

export const REFUSAL_TEXT =
  "Sorry, I can't help you here: this bot only answers in its configured channels and to its configured people. Ask your Kafka on-call lead for access if you need it.";
