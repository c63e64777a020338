// ConsumerGroupDescribe (API key 69, KIP-848) from each group's coordinator,
// and describing groups of either protocol the way Java's Admin does:
// DescribeGroups first; a group it does not know as a classic group (Dead with
// no members, or GROUP_ID_NOT_FOUND) is asked again with ConsumerGroupDescribe.
// A broker without API 69 answers UNSUPPORTED_VERSION per group: DescribeGroups'
// answer then stands (such a broker has classic groups only).
import { ConsumerGroupDescribe as ConsumerGroupDescribeApi, type ConsumerGroupDescribeResult } from './codec.ts';
import { KafkaErrorCode } from '../../errors.ts';
import type { FanOutApi } from '../../router/spec.ts';
import { DescribeGroups, describedGroups, groupDescriber, groupResult } from '../describe-groups/call.ts';
import type { Router } from '../../router/router.ts';
import type { GroupDescription } from '../../admin/types.ts';

const { NONE } = KafkaErrorCode;
const GROUP_ID_NOT_FOUND = 69;

export const ConsumerGroupDescribe: FanOutApi<string, { groupIds: string[] }, ConsumerGroupDescribeResult, GroupDescription> = {
  name: 'ConsumerGroupDescribe',
  api: ConsumerGroupDescribeApi,
  ...groupDescriber,
  toResults: (res, batch, { brokerId }) =>
    describedGroups(res.groups, batch, (g) => {
      const ok = g.errorCode === NONE;
      return { ...groupResult(g, brokerId, { state: g.groupState, protocolType: ok ? 'consumer' : '', members: g.members.length }), ...(ok ? { groupType: 'consumer' as const } : {}) };
    }),
};

/** DescribeGroups' answer for a group it does not know as a classic one. */
export const notAClassicGroup = (g: GroupDescription): boolean => (g.errorCode === NONE && g.state === 'Dead' && g.members === 0) || g.errorCode === GROUP_ID_NOT_FOUND;

/** State, member count and protocol of each group, classic or consumer protocol; results in request order. */
export async function describeGroupsOfEitherProtocol(router: Router, groupIds: string[]): Promise<GroupDescription[]> {
  const classic = await router.fanOut(DescribeGroups, groupIds);
  const again = classic.filter(notAClassicGroup).map((g) => g.groupId);
  const asked = new Map(again.length > 0 ? (await router.fanOut(ConsumerGroupDescribe, again)).map((g) => [g.groupId, g]) : []);
  return classic.map((g) => {
    const c = asked.get(g.groupId);
    if (c?.errorCode === NONE) return c;
    // Unknown to both protocols (a share or streams group, or no group): not called classic.
    const neither = g.errorCode !== NONE || c?.errorCode === GROUP_ID_NOT_FOUND;
    return { ...g, groupType: neither ? 'unknown' : 'classic' };
  });
}
