// How a consumer group is named in findings and plans: its protocol, state and
// member count, as `kafka-consumer-groups.sh --describe --state` shows the
// last two (STATE, #MEMBERS), so the numbers can be checked against Kafka's tool.
import type { GroupState, GroupType } from '../kafka/types.ts';
import { andMore } from '../runtime/format.ts';
import { plural } from './finding.ts';

const PROTOCOL: Record<GroupType, string> = {
  classic: 'classic protocol',
  consumer: 'consumer protocol',
  share: 'share group',
  streams: 'streams group',
  unknown: 'protocol unknown',
};

/** "consumer protocol" (KIP-848), "classic protocol", "share group"...; null for a group read before types were (old snapshots). */
export function protocolText(type: GroupType | undefined): string | null {
  return type ? PROTOCOL[type] : null;
}

/** "consumer protocol, Stable, 1 member"; "Stable, 1 member" when the type is not known; "members unknown" when not described. */
export function groupStateText(g: Pick<GroupState, 'groupType' | 'state' | 'members'>): string {
  const members = g.members === undefined ? 'members unknown' : plural(g.members, 'member');
  return [protocolText(g.groupType), g.state, members].filter(Boolean).join(', ');
}

/** Who owns a partition now, for groups described with their assignments (consumer and share groups). */
export function ownerText(g: Pick<GroupState, 'assignments'>, topic: string, partition: number): string | null {
  if (!g.assignments) return null;
  const owner = g.assignments.find((m) => m.partitions.some((t) => t.topic === topic && t.partitions.includes(partition)));
  return owner ? `owned by ${owner.clientId} at ${owner.clientHost} (member ${owner.memberId}, epoch ${owner.memberEpoch})` : 'assigned to no member';
}

/**
 * The skipped-check line for share groups (KIP-932): their consumers acknowledge
 * records one by one and commit no offset, so there is no lag to judge. Null without any.
 */
export function shareGroupsNotJudged(groups: readonly GroupState[]): string | null {
  const share = groups.filter((g) => g.groupType === 'share');
  if (share.length === 0) return null;
  const named = share.map((g) => `${g.groupId} (${g.state}, ${g.members === undefined ? 'members unknown' : plural(g.members, 'member')})`);
  return `${share.length === 1 ? 'Share group' : `${share.length} share groups`}, not judged for lag (KIP-932: their consumers acknowledge records one by one and commit no offset): ${andMore(named, 10)}.`;
}
