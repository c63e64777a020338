// ListGroups (API key 16), from Kafka's ListGroupsRequest.json / Response.json:
// v0-v2 carry each group's id and protocol type only; v3 is the first flexible
// version; v4 (KIP-518, 2.6+) adds a states filter and each group's state; v5
// (KIP-848, 3.8+) a types filter and each group's type: "classic", "consumer"
// (the new rebalance protocol), "share" (KIP-932) or "streams" (KIP-1071).
// kafkajs 2.2.4 stops at v2, where a consumer-protocol group and a classic one
// both list as protocol type "consumer". Every broker lists only the groups it
// coordinates. Empty filters: every group, whatever its state and type.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';

export const LIST_GROUPS_API_KEY = 16;

export interface ListGroupsArgs {
  /** v4+: [] = every state. Not sent before v4. */
  statesFilter?: readonly string[];
  /** v5+: [] = every type. Not sent before v5. */
  typesFilter?: readonly string[];
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  /** v4+; null before. */
  groupState: string | null;
  /** v5+ ("classic", "consumer", "share", "streams"); null before. */
  groupType: string | null;
}

export interface ListGroupsResult {
  throttleTimeMs: number;
  errorCode: number;
  groups: ListedGroup[];
  /** The version the broker answered in (what it can tell: state from v4, type from v5). */
  version: number;
}

export const ListGroups: ApiDefinition<ListGroupsArgs | undefined, ListGroupsResult> = {
  apiKey: LIST_GROUPS_API_KEY,
  apiName: 'ListGroups',
  versions: [0, 1, 2, 3, 4, 5],
  firstFlexibleVersion: 3,
  encode(version, args) {
    assertVersion(ListGroups, version);
    const w = writerFor(ListGroups, version);
    if (version >= 4) w.array(args?.statesFilter ?? [], (w, s) => w.string(s));
    if (version >= 5) w.array(args?.typesFilter ?? [], (w, s) => w.string(s));
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(ListGroups, version);
    const r = readerFor(ListGroups, version, body);
    const throttleTimeMs = version >= 1 ? r.int32() : 0;
    const errorCode = r.int16();
    const groups =
      r.array((r) => {
        const g: ListedGroup = {
          groupId: r.requiredString('ListGroups group id'),
          protocolType: r.requiredString('ListGroups protocol type'),
          groupState: version >= 4 ? r.requiredString('ListGroups group state') : null,
          groupType: version >= 5 ? r.requiredString('ListGroups group type') : null,
        };
        r.tags();
        return g;
      }) ?? [];
    r.tags();
    return { throttleTimeMs, errorCode, groups, version };
  },
};
