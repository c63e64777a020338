// ListGroups (API key 16): each broker lists the groups it coordinates; from
// v5 (Kafka 3.8+) with each group's state and type (classic, consumer, share, streams).
import type { ListGroupsResult } from './codec.ts';
import { ListGroups as ListGroupsApi } from './codec.ts';
import { describeError } from '../../errors.ts';
import type { AdminApi } from '../../router/spec.ts';
import type { GroupListing } from '../../admin/types.ts';

export interface BrokerGroups {
  /** The broker's own error code (0: none). */
  errorCode: number;
  /** The broker's own error ("NAME: message"), null when none; its groups are kept either way. */
  error: string | null;
  groups: GroupListing[];
}

export const ListGroups: AdminApi<number, undefined, ListGroupsResult, BrokerGroups> = {
  name: 'ListGroups',
  api: ListGroupsApi,
  route: { to: 'broker', brokerId: (id) => id },
  build: () => undefined,
  toResults: (res) => ({
    errorCode: res.errorCode,
    error: describeError(res.errorCode),
    groups: res.groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, groupState: g.groupState, groupType: g.groupType })),
  }),
};
