// Metadata (API key 3), from Kafka's MetadataRequest.json / Response.json,
// decoded straight into the shape the snapshot reads (RawMetadata below). Our own
// decoder because a fleet's Metadata (200,000 partitions) spent 5 s in
// kafkajs's. We implement v1-v12 (Kafka 4.0 removed v0-v3, KIP-896; 2.8 offers
// up to v11): v1 rack, controller and internal flag, v2 cluster id, v3
// throttle time, v4 AllowAutoTopicCreation, v5 offline replicas, v7 leader
// epoch, v8 authorized operations, v9 the flexible encoding, v10 topic ids,
// v11 drops the cluster's authorized operations, v12 nullable topic names.
// Topics: null asks for every topic, [] for none (brokers and controller only).
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';

export const METADATA_API_KEY = 3;

export interface MetadataArgs {
  topics: readonly string[] | null;
  allowAutoTopicCreation: boolean;
}

export interface MetadataPartition {
  partitionErrorCode: number;
  partitionId: number;
  leader: number;
  /** -1 before v7. */
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  /** Empty before v5. */
  offlineReplicas: number[];
}

/** Metadata's answer, whatever its partitions carry: the decoded result, or the part the snapshot and the admin read. */
interface MetadataOf<Partition> {
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  clusterId: string | null;
  controllerId: number;
  topicMetadata: {
    topicErrorCode: number;
    /** '' for a topic asked by id that does not exist (v12+; we ask by name). */
    topic: string;
    isInternal: boolean;
    partitionMetadata: Partition[];
  }[];
}

export interface MetadataResult extends MetadataOf<MetadataPartition> {
  throttleTimeMs: number;
}

/** What the snapshot and the admin read of a Metadata answer (a MetadataResult is one; fakes build just this much). */
export type RawMetadata = MetadataOf<Omit<MetadataPartition, 'leaderEpoch' | 'offlineReplicas'> & { offlineReplicas?: number[] }>;

const ZERO_UUID = Buffer.alloc(16);

export const Metadata: ApiDefinition<MetadataArgs, MetadataResult> = {
  apiKey: METADATA_API_KEY,
  apiName: 'Metadata',
  versions: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  firstFlexibleVersion: 9,
  encode(version, args) {
    assertVersion(Metadata, version);
    const w = writerFor(Metadata, version);
    w.array(args.topics, (w, name) => {
      if (version >= 10) w.uuid(ZERO_UUID);
      w.string(name).tags();
    });
    if (version >= 4) w.bool(args.allowAutoTopicCreation);
    if (version >= 8 && version <= 10) w.bool(false);
    if (version >= 8) w.bool(false);
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(Metadata, version);
    const r = readerFor(Metadata, version, body);
    const throttleTimeMs = version >= 3 ? r.int32() : 0;
    const brokers =
      r.array((r) => {
        const b = { nodeId: r.int32(), host: r.requiredString('broker host'), port: r.int32(), rack: r.string() };
        r.tags();
        return b;
      }) ?? [];
    const clusterId = version >= 2 ? r.string() : null;
    const controllerId = r.int32();
    const topicMetadata =
      r.array((r) => {
        const topicErrorCode = r.int16();
        const topic = r.string() ?? '';
        if (version >= 10) r.skip(16, 'topic id');
        const isInternal = r.bool();
        const partitionMetadata =
          r.array((r) => {
            const partitionErrorCode = r.int16();
            const partitionId = r.int32();
            const leader = r.int32();
            const leaderEpoch = version >= 7 ? r.int32() : -1;
            const replicas = r.int32Array() ?? [];
            const isr = r.int32Array() ?? [];
            const offlineReplicas = version >= 5 ? (r.int32Array() ?? []) : [];
            r.tags();
            return { partitionErrorCode, partitionId, leader, leaderEpoch, replicas, isr, offlineReplicas };
          }) ?? [];
        if (version >= 8) r.int32(); // topic authorized operations (not asked)
        r.tags();
        return { topicErrorCode, topic, isInternal, partitionMetadata };
      }) ?? [];
    if (version >= 8 && version <= 10) r.int32(); // cluster authorized operations (not asked)
    r.tags();
    return { throttleTimeMs, brokers, clusterId, controllerId, topicMetadata };
  },
};
