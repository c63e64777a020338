// Every Kafka API we speak, one line each. An API is a folder of api/: its
// versions' encode/decode in codec.ts (our own, or kafkajs's encoder named
// there), and where the admin calls it, call.ts: its route (which broker: any,
// the controller, a partition's leader, a coordinator, each broker) and its
// result mapping, as router/spec.ts describes them. The router (router/)
// sends, routes and retries every call, the snapshot's too (Metadata,
// ListGroups, DescribeConfigs, ListPartitionReassignments; group describes,
// OffsetFetch and ListOffsets to the brokers Metadata names, router/passes.ts
// toNodes; DescribeCluster and DescribeTopicPartitions at a first broker and a
// second only if it failed, firstThenSecond). A new API: one folder, one line here
// (test/kafka/api-table.test.ts registers a toy one and checks the table
// against the folders).
import type { WireApi } from '../protocol/kafkajs.ts';
import type { AdminApi, FanOutApi, LentRouting } from '../router/spec.ts';
import { AlterPartitionReassignments as AlterPartitionReassignmentsWire } from './alter-partition-reassignments/codec.ts';
import { AlterPartitionReassignments } from './alter-partition-reassignments/call.ts';
import { ConsumerGroupDescribe as ConsumerGroupDescribeWire } from './consumer-group-describe/codec.ts';
import { ConsumerGroupDescribe } from './consumer-group-describe/call.ts';
import { DescribeCluster as DescribeClusterWire } from './describe-cluster/codec.ts';
import { DescribeCluster } from './describe-cluster/call.ts';
import { DescribeConfigsWire } from './describe-configs/codec.ts';
import { DescribeConfigs } from './describe-configs/call.ts';
import { DescribeGroupsWire } from './describe-groups/codec.ts';
import { DescribeGroups } from './describe-groups/call.ts';
import { DescribeLogDirs as DescribeLogDirsWire } from './describe-log-dirs/codec.ts';
import { DescribeLogDirs } from './describe-log-dirs/call.ts';
import { DescribeProducers } from './describe-producers/codec.ts';
import { describeProducersVia } from './describe-producers/call.ts';
import { DescribeQuorum } from './describe-quorum/codec.ts';
import { DescribeTopicPartitions as DescribeTopicPartitionsWire } from './describe-topic-partitions/codec.ts';
import { DescribeTopicPartitions } from './describe-topic-partitions/call.ts';
import { DescribeTransactions } from './describe-transactions/codec.ts';
import { describeTransactionsVia } from './describe-transactions/call.ts';
import { ElectLeaders as ElectLeadersWire } from './elect-leaders/codec.ts';
import { ElectLeaders } from './elect-leaders/call.ts';
import { FindCoordinatorWire } from './find-coordinator/codec.ts';
import { FindCoordinator } from './find-coordinator/call.ts';
import { IncrementalAlterConfigs as IncrementalAlterConfigsWire } from './incremental-alter-configs/codec.ts';
import { IncrementalAlterConfigs } from './incremental-alter-configs/call.ts';
import { ListGroups as ListGroupsWire } from './list-groups/codec.ts';
import { ListGroups } from './list-groups/call.ts';
import { ListOffsets as ListOffsetsWire } from './list-offsets/codec.ts';
import { ListOffsets } from './list-offsets/call.ts';
import { ListPartitionReassignmentsWire } from './list-partition-reassignments/codec.ts';
import { ListPartitionReassignments } from './list-partition-reassignments/call.ts';
import { ListTransactions } from './list-transactions/codec.ts';
import { listTransactionsVia } from './list-transactions/call.ts';
import { Metadata as MetadataWire } from './metadata/codec.ts';
import { Metadata } from './metadata/call.ts';
import { OffsetCommitWire } from './offset-commit/codec.ts';
import { OffsetCommit } from './offset-commit/call.ts';
import { OffsetFetch as OffsetFetchWire } from './offset-fetch/codec.ts';
import { OffsetFetch } from './offset-fetch/call.ts';
import { ShareGroupDescribe } from './share-group-describe/codec.ts';
import { WriteTxnMarkers } from './write-txn-markers/codec.ts';
import { abortTransactionVia } from './write-txn-markers/call.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- a table of APIs of every argument and result type */
/** How the admin calls an API: one routed request (AdminApi), items spread over brokers (FanOutApi), or a call that spreads its own items over the router's connections. */
export type ApiCall = AdminApi<any, any, any, any> | FanOutApi<any, any, any, any> | ((routing: LentRouting, ...args: any[]) => Promise<unknown>);

export interface KafkaApi {
  /** Its folder under lib/kafka/api/. */
  folder: string;
  /** Its versions' encode/decode. */
  wire: WireApi<any, any>;
  /** Its route and result mapping, where the router calls it (the admin, the snapshot); without one, a snapshot read over the router's connections (the file named beside it). */
  call?: ApiCall;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export const KAFKA_APIS = {
  Metadata: { folder: 'metadata', wire: MetadataWire, call: Metadata }, // any broker
  DescribeCluster: { folder: 'describe-cluster', wire: DescribeClusterWire, call: DescribeCluster }, // snapshot: any broker, a second if the first failed (registered-brokers-read.ts)
  DescribeQuorum: { folder: 'describe-quorum', wire: DescribeQuorum }, // snapshot: a KRaft broker or controller (quorum-read.ts)
  DescribeTopicPartitions: { folder: 'describe-topic-partitions', wire: DescribeTopicPartitionsWire, call: DescribeTopicPartitions }, // snapshot: any broker, a second if the first failed (partition-details.ts)
  ListOffsets: { folder: 'list-offsets', wire: ListOffsetsWire, call: ListOffsets }, // each partition's leader
  OffsetFetch: { folder: 'offset-fetch', wire: OffsetFetchWire, call: OffsetFetch }, // the group's coordinator
  OffsetCommit: { folder: 'offset-commit', wire: OffsetCommitWire, call: OffsetCommit }, // the group's coordinator
  DescribeConfigs: { folder: 'describe-configs', wire: DescribeConfigsWire, call: DescribeConfigs }, // config owners
  IncrementalAlterConfigs: { folder: 'incremental-alter-configs', wire: IncrementalAlterConfigsWire, call: IncrementalAlterConfigs }, // config owners
  ElectLeaders: { folder: 'elect-leaders', wire: ElectLeadersWire, call: ElectLeaders }, // the controller
  AlterPartitionReassignments: { folder: 'alter-partition-reassignments', wire: AlterPartitionReassignmentsWire, call: AlterPartitionReassignments }, // the controller
  ListPartitionReassignments: { folder: 'list-partition-reassignments', wire: ListPartitionReassignmentsWire, call: ListPartitionReassignments }, // the controller
  DescribeLogDirs: { folder: 'describe-log-dirs', wire: DescribeLogDirsWire, call: DescribeLogDirs }, // that broker
  ListGroups: { folder: 'list-groups', wire: ListGroupsWire, call: ListGroups }, // each broker
  DescribeGroups: { folder: 'describe-groups', wire: DescribeGroupsWire, call: DescribeGroups }, // each group's coordinator
  ConsumerGroupDescribe: { folder: 'consumer-group-describe', wire: ConsumerGroupDescribeWire, call: ConsumerGroupDescribe }, // each group's coordinator
  ShareGroupDescribe: { folder: 'share-group-describe', wire: ShareGroupDescribe }, // snapshot: each group's coordinator from Metadata (groups.ts, Router.toNodes)
  FindCoordinator: { folder: 'find-coordinator', wire: FindCoordinatorWire, call: FindCoordinator }, // any broker
  DescribeProducers: { folder: 'describe-producers', wire: DescribeProducers, call: describeProducersVia }, // each partition's leader
  DescribeTransactions: { folder: 'describe-transactions', wire: DescribeTransactions, call: describeTransactionsVia }, // each transactional id's coordinator
  ListTransactions: { folder: 'list-transactions', wire: ListTransactions, call: listTransactionsVia }, // each broker
  WriteTxnMarkers: { folder: 'write-txn-markers', wire: WriteTxnMarkers, call: abortTransactionVia }, // the partition's leader
} as const satisfies Record<string, KafkaApi>;
