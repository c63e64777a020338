// DescribeGroups (API key 15), from each group's coordinator: state, protocol
// type and member count.
import { DescribeGroupsWire, type RawDescribeGroupsFull } from './codec.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import type { FanOutApi } from '../../router/spec.ts';
import type { GroupDescription } from '../../admin/types.ts';

const { NONE, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, UNKNOWN_SERVER_ERROR } = KafkaErrorCode;

const unknown = (groupId: string, errorCode: number, error: string | null, coordinator: number | null): GroupDescription => ({
  groupId,
  errorCode,
  error,
  state: 'Unknown',
  protocolType: '',
  members: 0,
  coordinator,
});

export const DescribeGroups: FanOutApi<string, { groupIds: string[] }, RawDescribeGroupsFull, GroupDescription> = {
  name: 'DescribeGroups',
  api: DescribeGroupsWire,
  route: { to: 'coordinators', keyType: 'group', moved: (g) => g.errorCode === NOT_COORDINATOR || g.errorCode === COORDINATOR_NOT_AVAILABLE },
  key: (groupId) => groupId,
  build: (groupIds) => ({ groupIds }),
  toResults(res, batch, { brokerId }) {
    const asked = new Set(batch);
    const out = new Map<string, GroupDescription>();
    for (const g of res.groups) {
      if (!asked.has(g.groupId)) continue;
      out.set(g.groupId, {
        groupId: g.groupId,
        errorCode: g.errorCode,
        error: describeError(g.errorCode),
        state: g.errorCode === NONE ? g.state : 'Unknown',
        protocolType: g.protocolType ?? '',
        members: g.errorCode === NONE ? (g.members ?? []).length : 0,
        coordinator: brokerId,
      });
    }
    return out;
  },
  failed: (groupId, errorCode, error, { brokerId }) => unknown(groupId, errorCode, error, brokerId),
  missing: (groupId) => unknown(groupId, UNKNOWN_SERVER_ERROR, 'UNKNOWN_SERVER_ERROR: the coordinator did not describe this group', null),
};
