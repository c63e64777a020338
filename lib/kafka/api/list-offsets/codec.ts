// ListOffsets (API key 2), from Kafka's ListOffsetsRequest.json / Response.json.
// Our own codec because kafkajs's encoder allocates a buffer per field: a
// fleet's end and start offsets are 400,000 partitions per sample. We
// implement v1-v9 (Kafka 4.0 removed v0, KIP-896; 2.8 offers up to v6, 3.x up
// to v8, 4.x up to v10): v2 adds IsolationLevel and a throttle time, v4 the
// leader epoch (request: -1, "any"; response: the offset's epoch), v6 the
// flexible encoding; v7-v9 only widen the timestamps a broker accepts.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';

export const LIST_OFFSETS_API_KEY = 2;

export interface ListOffsetsArgs {
  replicaId: number;
  /** 0 READ_UNCOMMITTED (the high watermark), 1 READ_COMMITTED (the LSO); v2+. */
  isolationLevel: number;
  topics: readonly { topic: string; partitions: readonly { partition: number; timestamp: number }[] }[];
}

export interface ListOffsetsResult {
  throttleTimeMs: number;
  topics: { name: string; partitions: { partition: number; errorCode: number; timestamp: number; offset: number; leaderEpoch: number }[] }[];
}

export const ListOffsets: ApiDefinition<ListOffsetsArgs, ListOffsetsResult> = {
  apiKey: LIST_OFFSETS_API_KEY,
  apiName: 'ListOffsets',
  versions: [1, 2, 3, 4, 5, 6, 7, 8, 9],
  firstFlexibleVersion: 6,
  encode(version, args) {
    assertVersion(ListOffsets, version);
    const w = writerFor(ListOffsets, version);
    w.int32(args.replicaId);
    if (version >= 2) w.int8(args.isolationLevel);
    w.array(args.topics, (w, t) => {
      w.string(t.topic).array(t.partitions, (w, p) => {
        w.int32(p.partition);
        if (version >= 4) w.int32(-1);
        w.int64(p.timestamp).tags();
      });
      w.tags();
    });
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(ListOffsets, version);
    const r = readerFor(ListOffsets, version, body);
    const throttleTimeMs = version >= 2 ? r.int32() : 0;
    const topics = r.topics('topic name', (r) => {
      const partition = r.int32();
      const errorCode = r.int16();
      const timestamp = r.int64();
      const offset = r.int64();
      const leaderEpoch = version >= 4 ? r.int32() : -1;
      return { partition, errorCode, timestamp, offset, leaderEpoch };
    });
    r.tags();
    return { throttleTimeMs, topics };
  },
};
