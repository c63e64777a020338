// DescribeTopicPartitions (API key 75, KIP-966), from Kafka's
// DescribeTopicPartitionsRequest.json / Response.json: validVersions 0,
// flexibleVersions 0+, unchanged from 3.8.0 (where it appeared) to 4.4.0.
// Its listeners are ["broker"]: only KRaft brokers serve it (3.8+); ZooKeeper-
// mode brokers and KRaft before 3.8 do not list it in ApiVersions, and Metadata
// is then all there is (it has no ELR fields).
//
// What Metadata lacks: each partition's EligibleLeaderReplicas and
// LastKnownElr. The answer is paginated: topics in name order, at most
// min(ResponsePartitionLimit, broker's max.request.partition.size.limit,
// default 2000) partitions, and a NextCursor (topic, partition) to resume from
// when more remain. An empty topic list asks for every topic.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';

export const DESCRIBE_TOPIC_PARTITIONS_API_KEY = 75;

export interface TopicPartitionCursor {
  topicName: string;
  partitionIndex: number;
}

export interface DescribeTopicPartitionsArgs {
  /** [] asks for every topic. */
  topics: readonly string[];
  responsePartitionLimit: number;
  /** Where to resume: a previous answer's nextCursor. */
  cursor: TopicPartitionCursor | null;
}

export interface DescribedPartition {
  errorCode: number;
  partitionIndex: number;
  leaderId: number;
  leaderEpoch: number;
  replicaNodes: number[];
  isrNodes: number[];
  /** Nullable on the wire; null read as []. */
  eligibleLeaderReplicas: number[];
  lastKnownElr: number[];
  offlineReplicas: number[];
}

export interface DescribedTopic {
  errorCode: number;
  /** Nullable on the wire. */
  name: string | null;
  topicId: string;
  isInternal: boolean;
  partitions: DescribedPartition[];
  topicAuthorizedOperations: number;
}

export interface DescribeTopicPartitionsResult {
  throttleTimeMs: number;
  topics: DescribedTopic[];
  nextCursor: TopicPartitionCursor | null;
}

export const DescribeTopicPartitions: ApiDefinition<DescribeTopicPartitionsArgs, DescribeTopicPartitionsResult> = {
  apiKey: DESCRIBE_TOPIC_PARTITIONS_API_KEY,
  apiName: 'DescribeTopicPartitions',
  versions: [0],
  firstFlexibleVersion: 0,
  encode(version, args) {
    assertVersion(DescribeTopicPartitions, version);
    const w = writerFor(DescribeTopicPartitions, version);
    w.array(args.topics, (w, name) => w.string(name).tags());
    w.int32(args.responsePartitionLimit);
    // A nullable struct: int8 -1 for null, 1 then the struct.
    if (args.cursor === null) w.int8(-1);
    else w.int8(1).string(args.cursor.topicName).int32(args.cursor.partitionIndex).tags();
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(DescribeTopicPartitions, version);
    const r = readerFor(DescribeTopicPartitions, version, body);
    const throttleTimeMs = r.int32();
    const topics =
      r.array((r) => {
        const errorCode = r.int16();
        const name = r.string();
        const topicId = r.uuid();
        const isInternal = r.bool();
        const partitions =
          r.array((r) => {
            const p: DescribedPartition = {
              errorCode: r.int16(),
              partitionIndex: r.int32(),
              leaderId: r.int32(),
              leaderEpoch: r.int32(),
              replicaNodes: r.int32Array() ?? [],
              isrNodes: r.int32Array() ?? [],
              eligibleLeaderReplicas: r.int32Array() ?? [],
              lastKnownElr: r.int32Array() ?? [],
              offlineReplicas: r.int32Array() ?? [],
            };
            r.tags();
            return p;
          }) ?? [];
        const topicAuthorizedOperations = r.int32();
        r.tags();
        return { errorCode, name, topicId, isInternal, partitions, topicAuthorizedOperations };
      }) ?? [];
    let nextCursor: TopicPartitionCursor | null = null;
    if (r.int8() >= 0) {
      nextCursor = { topicName: r.requiredString('NextCursor topic name'), partitionIndex: r.int32() };
      r.tags();
    }
    r.tags();
    return { throttleTimeMs, topics, nextCursor };
  },
};
