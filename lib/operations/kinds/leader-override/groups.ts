// The consumer groups a leader override touches: which are committed beyond
// the new leader's end, whether the plan commits them at that end, and what
// Kafka answers an admin offset commit into each as it is now.
import type { GroupBeyondEnd, LossEstimate } from '../../types.ts';
import { andMore } from '../../../runtime/format.ts';

/** A consumer group's committed offset on the partition being overridden. */
export interface CommittedGroup {
  groupId: string;
  /** As DescribeGroups reports it ("Empty", "Stable", ...); "Unknown" when it could not be described. */
  state: string;
  /** Active members; null when the group could not be described. */
  members: number | null;
  /** null when the group's offset on this partition could not be read. */
  committedOffset: number | null;
  /** classic, or consumer (KIP-848); absent when not known. */
  groupType?: 'classic' | 'consumer' | 'unknown';
}

/**
 * Groups committed beyond the new end: they would hit OFFSET_OUT_OF_RANGE.
 * While the new end is unknown (the chosen replica unmeasured, or sizes only),
 * every group committed on the partition may be beyond it.
 */
export function groupsBeyondEnd(groups: readonly CommittedGroup[], loss: LossEstimate): GroupBeyondEnd[] {
  const end = loss.unit === 'messages' ? loss.end : null;
  return groups
    .filter((g): g is CommittedGroup & { committedOffset: number } => g.committedOffset !== null && (end === null || g.committedOffset > end))
    .map((g) => ({
      groupId: g.groupId,
      committedOffset: g.committedOffset,
      state: g.state,
      members: g.members,
      certain: end !== null,
      committedByPlan: isIdle(g),
      ...(g.groupType ? { groupType: g.groupType } : {}),
      adminCommit: adminCommitVerdict(g),
    }))
    .sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
}

/**
 * Only a group nobody consumes in can have its offset committed for it: Empty and no members,
 * as DescribeGroups says it of a classic group and ConsumerGroupDescribe of a consumer-protocol one.
 */
function isIdle(g: CommittedGroup): boolean {
  return g.state.toLowerCase() === 'empty' && g.members === 0;
}

/**
 * What Kafka does with an admin OffsetCommit (generation / member epoch -1, empty member id) into
 * the group now. Measured on 4.4.0 (test/kafka/consumer-protocol.int.test.ts): an Empty group takes it (both
 * protocols); a live classic group and a consumer-protocol group with members (frozen ones too) refuse it: UNKNOWN_MEMBER_ID.
 */
function adminCommitVerdict(g: CommittedGroup): GroupBeyondEnd['adminCommit'] {
  if (isIdle(g)) return 'accepted';
  // Dead: being removed (a classic one answers COORDINATOR_NOT_AVAILABLE), or not described.
  if (g.members === null || g.state === 'Unknown' || g.state === 'Dead' || g.groupType === 'unknown') return 'unknown';
  return 'refused-members';
}

export function groupsUnreadText(groups: readonly CommittedGroup[], incomplete: string | undefined): string | undefined {
  const unreadable = groups.filter((g) => g.committedOffset === null).map((g) => g.groupId);
  const parts = [incomplete ?? '', unreadable.length ? `no committed offset could be read for ${andMore(unreadable, 10)}` : ''];
  return parts.filter(Boolean).join('; ') || undefined;
}
