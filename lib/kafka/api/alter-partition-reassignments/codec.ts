// AlterPartitionReassignments (API key 45, KIP-455), from Kafka's
// AlterPartitionReassignmentsRequest.json / Response.json: flexible from v0.
// kafkajs has a v0 request too, but it cannot send a null replica list (the
// way to cancel a partition's reassignment), hence this one. We implement v0
// only: v1 (Kafka 4.1, KIP-860) adds AllowReplicationFactorChange, whose default
// (true) is exactly v0's behaviour, so v0 is the one version all of 2.8-4.1 speak.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';
import { byTopic } from '../../partitions.ts';

export const ALTER_PARTITION_REASSIGNMENTS_API_KEY = 45;

export interface AlterPartitionReassignmentsArgs {
  /** replicas null cancels that partition's pending reassignment. */
  targets: readonly { topic: string; partition: number; replicas: readonly number[] | null }[];
  timeoutMs: number;
}

export interface AlterPartitionReassignmentsResult {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  responses: { name: string; partitions: { partition: number; errorCode: number; errorMessage: string | null }[] }[];
}

export const AlterPartitionReassignments: ApiDefinition<AlterPartitionReassignmentsArgs, AlterPartitionReassignmentsResult> = {
  apiKey: ALTER_PARTITION_REASSIGNMENTS_API_KEY,
  apiName: 'AlterPartitionReassignments',
  versions: [0],
  firstFlexibleVersion: 0,
  encode(version, args) {
    assertVersion(AlterPartitionReassignments, version);
    const w = writerFor(AlterPartitionReassignments, version);
    w.int32(args.timeoutMs);
    w.array(byTopic(args.targets), (w, t) => {
      w.string(t.topic);
      w.array(t.items, (w, p) => {
        w.int32(p.partition).int32Array(p.replicas).tags();
      });
      w.tags();
    });
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(AlterPartitionReassignments, version);
    const r = readerFor(AlterPartitionReassignments, version, body);
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const errorMessage = r.string();
    const responses = r.topicPartitionResults('topic name').map(({ topic, partitions }) => ({ name: topic, partitions }));
    r.tags();
    return { throttleTimeMs, errorCode, errorMessage, responses };
  },
};
