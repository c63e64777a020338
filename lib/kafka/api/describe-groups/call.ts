// DescribeGroups (API key 15), from each group's coordinator: state, protocol
// type and member count.
import { DescribeGroupsWire, type RawDescribeGroupsFull } from './codec.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import type { Answerer, FanOutApi } from '../../router/spec.ts';
import type { GroupDescription } from '../../admin/types.ts';

const { NONE, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, UNKNOWN_SERVER_ERROR } = KafkaErrorCode;

/** A group that could not be described: its error, no state. */
export const undescribedGroup = (groupId: string, errorCode: number, error: string | null, coordinator: number | null): GroupDescription => ({
  groupId,
  errorCode,
  error,
  state: 'Unknown',
  protocolType: '',
  members: 0,
  coordinator,
});

/** The answer of a coordinator that no longer is one: asked again after a new FindCoordinator. */
export const coordinatorMoved = (g: { errorCode: number }): boolean => g.errorCode === NOT_COORDINATOR || g.errorCode === COORDINATOR_NOT_AVAILABLE;

/** The groups of an answer that were asked in this batch, each as `describe` maps it. */
export function describedGroups<G extends { groupId: string }>(groups: readonly G[], batch: readonly string[], describe: (g: G) => GroupDescription): Map<string, GroupDescription> {
  const asked = new Set(batch);
  return new Map(groups.filter((g) => asked.has(g.groupId)).map((g) => [g.groupId, describe(g)]));
}

/** A group as its coordinator described it: its error in Kafka's words; state and members only without one. */
export function groupResult(g: { groupId: string; errorCode: number }, coordinator: number | null, described: { state: string; protocolType: string; members: number }): GroupDescription {
  const ok = g.errorCode === NONE;
  return {
    groupId: g.groupId,
    errorCode: g.errorCode,
    error: describeError(g.errorCode),
    state: ok ? described.state : 'Unknown',
    protocolType: described.protocolType,
    members: ok ? described.members : 0,
    coordinator,
  };
}

/** The shape every group describer shares: to each group's coordinator, one result per group asked. */
export const groupDescriber = {
  route: { to: 'coordinators', keyType: 'group', moved: coordinatorMoved },
  key: (groupId: string) => groupId,
  build: (groupIds: string[]) => ({ groupIds }),
  failed: (groupId: string, errorCode: number, error: string | null, { brokerId }: Answerer) => undescribedGroup(groupId, errorCode, error, brokerId),
  missing: (groupId: string) => undescribedGroup(groupId, UNKNOWN_SERVER_ERROR, 'UNKNOWN_SERVER_ERROR: the coordinator did not describe this group', null),
} as const;

export const DescribeGroups: FanOutApi<string, { groupIds: string[] }, RawDescribeGroupsFull, GroupDescription> = {
  name: 'DescribeGroups',
  api: DescribeGroupsWire,
  ...groupDescriber,
  toResults: (res, batch, { brokerId }) =>
    describedGroups(res.groups, batch, (g) => groupResult(g, brokerId, { state: g.state, protocolType: g.protocolType ?? '', members: (g.members ?? []).length })),
};
