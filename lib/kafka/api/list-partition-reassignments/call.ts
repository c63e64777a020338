// ListPartitionReassignments (API key 46, KIP-455), via the controller.
import { ListPartitionReassignmentsWire, type RawReassignments } from './codec.ts';
import { KafkaErrorCode, wholeCallError } from '../../errors.ts';
import { groupByTopic } from '../../partitions.ts';
import type { AdminApi } from '../../router/spec.ts';
import { byTopicPartition } from '../../router/results.ts';
import type { OngoingReassignment, TopicPartition } from '../../admin/types.ts';

type Args = { topics: { topic: string; partitions: number[] }[] | null; timeout: number };

/** null lists every reassignment in progress. */
export const ListPartitionReassignments: AdminApi<TopicPartition[] | null, Args, RawReassignments, OngoingReassignment[]> = {
  name: 'ListPartitionReassignments',
  api: ListPartitionReassignmentsWire,
  route: { to: 'controller', notController: (r) => r.errorCode === KafkaErrorCode.NOT_CONTROLLER },
  build: (partitions, ctx) => ({
    topics: partitions ? [...groupByTopic(partitions)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => p.partition) })) : null,
    timeout: ctx.requestTimeoutMs,
  }),
  toResults(res) {
    if (res.errorCode !== KafkaErrorCode.NONE) throw wholeCallError('ListPartitionReassignments', res.errorCode);
    return (res.topics ?? [])
      .flatMap((t) =>
        (t.partitions ?? []).map((p) => ({
          topic: t.name,
          partition: p.partition,
          replicas: p.replicas ?? [],
          addingReplicas: p.addingReplicas ?? [],
          removingReplicas: p.removingReplicas ?? [],
        })),
      )
      .sort(byTopicPartition);
  },
};
