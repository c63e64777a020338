// OffsetFetch (API key 9), from Kafka's OffsetFetchRequest.json / Response.json.
// We implement v1-v8: v1 reads from Kafka's offsets log, v2 lets the topic list
// be null (every partition the group committed) and adds a top-level error
// code, v3 a throttle time, v5 the committed leader epoch, v6 the flexible
// encoding, v7 RequireStable, and v8 (KIP-709, Kafka 3.0+) many groups in one
// request, each with its own error code. Brokers before 3.0 (the 2.8 line)
// stop at v7: one request per group there. Kafka 4.0 removed v0 (KIP-896).
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';
import { ProtocolError } from '../../protocol/codec.ts';

export const OFFSET_FETCH_API_KEY = 9;
/** The first version that carries many groups per request. */
export const OFFSET_FETCH_BATCHED_VERSION = 8;

export interface OffsetFetchGroupRequest {
  groupId: string;
  /** null: every partition the group committed (v2+). */
  topics: readonly { topic: string; partitions: readonly number[] }[] | null;
}

export interface OffsetFetchArgs {
  /** Exactly one group before v8. */
  groups: readonly OffsetFetchGroupRequest[];
  /** v7+: hold back offsets of open transactions with a retriable error. */
  requireStable?: boolean;
}

export interface OffsetFetchPartition {
  partition: number;
  /** -1: no committed offset. */
  committedOffset: number;
  /** -1 before v5 or when unknown. */
  committedLeaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchGroupResult {
  /** null before v8: the answer names no group (it is the one asked). */
  groupId: string | null;
  /** The group-level error (v8), or the top-level one (v2-v7). */
  errorCode: number;
  topics: { name: string; partitions: OffsetFetchPartition[] }[];
}

export interface OffsetFetchResult {
  throttleTimeMs: number;
  groups: OffsetFetchGroupResult[];
}

export const OffsetFetch: ApiDefinition<OffsetFetchArgs, OffsetFetchResult> = {
  apiKey: OFFSET_FETCH_API_KEY,
  apiName: 'OffsetFetch',
  versions: [1, 2, 3, 4, 5, 6, 7, 8],
  firstFlexibleVersion: 6,
  encode(version, args) {
    assertVersion(OffsetFetch, version);
    const w = writerFor(OffsetFetch, version);
    const topicsOf = (g: OffsetFetchGroupRequest) => {
      if (g.topics === null && version < 2) throw new ProtocolError(`OffsetFetch v${version} cannot ask for every partition of group ${g.groupId}`);
      w.array(g.topics, (w, t) => w.string(t.topic).int32Array(t.partitions).tags());
    };
    if (version >= OFFSET_FETCH_BATCHED_VERSION) {
      w.array(args.groups, (w, g) => {
        w.string(g.groupId);
        topicsOf(g);
        w.tags();
      });
    } else {
      if (args.groups.length !== 1) throw new ProtocolError(`OffsetFetch v${version} carries one group, not ${args.groups.length}`);
      w.string(args.groups[0]!.groupId);
      topicsOf(args.groups[0]!);
    }
    if (version >= 7) w.bool(args.requireStable ?? false);
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(OffsetFetch, version);
    const r = readerFor(OffsetFetch, version, body);
    const throttleTimeMs = version >= 3 ? r.int32() : 0;
    const topics = () =>
      r.topics('topic name', (r) => {
        const partition = r.int32();
        const committedOffset = r.int64();
        const committedLeaderEpoch = version >= 5 ? r.int32() : -1;
        return { partition, committedOffset, committedLeaderEpoch, metadata: r.string(), errorCode: r.int16() };
      });
    let groups: OffsetFetchGroupResult[];
    if (version >= OFFSET_FETCH_BATCHED_VERSION) {
      groups =
        r.array((r) => {
          const groupId = r.requiredString('group id');
          const g = { groupId, topics: topics(), errorCode: r.int16() };
          r.tags();
          return g;
        }) ?? [];
    } else {
      const ts = topics();
      groups = [{ groupId: null, topics: ts, errorCode: version >= 2 ? r.int16() : 0 }];
    }
    r.tags();
    return { throttleTimeMs, groups };
  },
};
