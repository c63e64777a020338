// DescribeQuorum (API key 55, KIP-595), from Kafka's DescribeQuorumRequest.json /
// Response.json: validVersions 0-2, flexible 0+. The request names the metadata
// log's one partition (__cluster_metadata-0); KRaft brokers forward it to the
// active controller (the quorum leader), controllers answer it themselves (a
// follower answers NOT_LEADER_OR_FOLLOWER). ZooKeeper-mode brokers do not list it.
//   v1 (3.3+, KIP-836): LastFetchTimestamp and LastCaughtUpTimestamp per replica.
//   v2 (3.9+, KIP-853): top-level and per-partition ErrorMessage, each replica's
//      ReplicaDirectoryId (zero for the voters of a static quorum), and Nodes:
//      the voters' listeners.
// v0 had a tagged HighWatermarkUpdateTimeMs in some releases: tagged fields are skipped.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';
import type { Reader } from '../../protocol/codec.ts';

export const DESCRIBE_QUORUM_API_KEY = 55;
export const METADATA_TOPIC = '__cluster_metadata';
/** Kafka's printed form of the zero UUID (URL-safe base64 of 16 zero bytes). */
export const ZERO_DIRECTORY_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

export interface QuorumReplicaState {
  replicaId: number;
  /** v2+; null before v2. ZERO_DIRECTORY_ID when the leader does not know it (static voters). */
  directoryId: string | null;
  /** -1 when unknown. */
  logEndOffset: number;
  /** v1+ (epoch ms on the leader's clock); -1 unknown, and always -1 for the leader itself. null before v1. */
  lastFetchTimestamp: number | null;
  /** v1+; the leader reports its own as "now". -1 unknown; null before v1. */
  lastCaughtUpTimestamp: number | null;
}

export interface DescribeQuorumPartition {
  partitionIndex: number;
  errorCode: number;
  /** v2+. */
  errorMessage: string | null;
  /** -1 when the leader is unknown. */
  leaderId: number;
  leaderEpoch: number;
  highWatermark: number;
  currentVoters: QuorumReplicaState[];
  observers: QuorumReplicaState[];
}

export interface QuorumNode {
  nodeId: number;
  listeners: { name: string; host: string; port: number }[];
}

export interface DescribeQuorumResult {
  errorCode: number;
  /** v2+. */
  errorMessage: string | null;
  topics: { topicName: string; partitions: DescribeQuorumPartition[] }[];
  /** v2+: the voters' endpoints; [] before v2. */
  nodes: QuorumNode[];
}

export interface DescribeQuorumArgs {
  /** Defaults to __cluster_metadata-0, the only partition a quorum answers for. */
  topic?: string;
  partition?: number;
}

function replicaState(version: number) {
  return (r: Reader): QuorumReplicaState => {
    const replicaId = r.int32();
    const directoryId = version >= 2 ? r.uuid() : null;
    const logEndOffset = r.int64();
    const lastFetchTimestamp = version >= 1 ? r.int64() : null;
    const lastCaughtUpTimestamp = version >= 1 ? r.int64() : null;
    r.tags();
    return { replicaId, directoryId, logEndOffset, lastFetchTimestamp, lastCaughtUpTimestamp };
  };
}

export const DescribeQuorum: ApiDefinition<DescribeQuorumArgs, DescribeQuorumResult> = {
  apiKey: DESCRIBE_QUORUM_API_KEY,
  apiName: 'DescribeQuorum',
  versions: [0, 1, 2],
  firstFlexibleVersion: 0,
  encode(version, args) {
    assertVersion(DescribeQuorum, version);
    const w = writerFor(DescribeQuorum, version);
    w.array([{ topic: args.topic ?? METADATA_TOPIC, partition: args.partition ?? 0 }], (w, t) => {
      w.string(t.topic);
      w.array([t.partition], (w, p) => w.int32(p).tags());
      w.tags();
    });
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(DescribeQuorum, version);
    const r = readerFor(DescribeQuorum, version, body);
    const errorCode = r.int16();
    const errorMessage = version >= 2 ? r.string() : null;
    const replica = replicaState(version);
    const topics =
      r.array((r) => {
        const topicName = r.requiredString('DescribeQuorum topic name');
        const partitions =
          r.array((r) => {
            const partitionIndex = r.int32();
            const errorCode = r.int16();
            const errorMessage = version >= 2 ? r.string() : null;
            const leaderId = r.int32();
            const leaderEpoch = r.int32();
            const highWatermark = r.int64();
            const currentVoters = r.array(replica) ?? [];
            const observers = r.array(replica) ?? [];
            r.tags();
            return { partitionIndex, errorCode, errorMessage, leaderId, leaderEpoch, highWatermark, currentVoters, observers };
          }) ?? [];
        r.tags();
        return { topicName, partitions };
      }) ?? [];
    const nodes =
      version >= 2
        ? (r.array((r) => {
            const nodeId = r.int32();
            const listeners =
              r.array((r) => {
                const name = r.requiredString('DescribeQuorum listener name');
                const host = r.requiredString('DescribeQuorum listener host');
                // uint16 on the wire.
                const port = r.int16() & 0xffff;
                r.tags();
                return { name, host, port };
              }) ?? [];
            r.tags();
            return { nodeId, listeners };
          }) ?? [])
        : [];
    r.tags();
    return { errorCode, errorMessage, topics, nodes };
  },
};
