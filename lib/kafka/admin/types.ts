// The admin's public types: what callers pass and get back (lib/kafka/admin.ts
// implements KafkaAdmin; each API: its folder of lib/kafka/api/).

import type { TopicPartition } from '../partitions.ts';
import type { RawMetadata } from '../api/metadata/codec.ts';
import type { ConfigOperation, ConfigResourceType } from '../api/incremental-alter-configs/codec.ts';
import type { PartitionProducers } from '../api/describe-producers/call.ts';
import type { TransactionDescription } from '../api/describe-transactions/call.ts';
import type { TransactionList } from '../api/list-transactions/call.ts';
import type { AbortSpec } from '../api/write-txn-markers/call.ts';

export type { ConfigOperation, ConfigResourceType, RawMetadata, TopicPartition };

/** Outcome for one partition: errorCode 0 and error null on success, else Kafka's code and "NAME: message". */
export interface PartitionResult extends TopicPartition {
  errorCode: number;
  error: string | null;
}

export interface ReassignmentTarget extends TopicPartition {
  /** The new replica list, preferred leader first; null cancels the partition's pending reassignment. */
  replicas: number[] | null;
}

export interface OngoingReassignment extends TopicPartition {
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export type ElectionType = 'preferred' | 'unclean';

export interface ConfigAlteration {
  type: ConfigResourceType;
  /** Topic name, broker id as a string, or '' for the cluster-wide broker default. */
  name: string;
  ops: { name: string; op: ConfigOperation; value: string | null }[];
}

export interface ConfigResult {
  type: ConfigResourceType;
  name: string;
  errorCode: number;
  error: string | null;
}

export interface ConfigEntry {
  name: string;
  /** null for sensitive values (passwords) and unset ones. */
  value: string | null;
  isDefault: boolean;
  /** Kafka's ConfigSource id: 1 dynamic topic, 2 dynamic broker, 3 dynamic default broker, 4 static broker (server.properties), 5 default. */
  source: number;
  isSensitive: boolean;
  readOnly: boolean;
}

export interface ConfigDescription extends ConfigResult {
  entries: ConfigEntry[];
}

export interface LogDirReplica extends TopicPartition {
  sizeBytes: number;
  offsetLag: number;
  /** A replica being moved here by AlterReplicaLogDirs. */
  isFuture: boolean;
}

export interface LogDir {
  path: string;
  errorCode: number;
  error: string | null;
  /** Volume size and free space (DescribeLogDirs v4, Kafka 3.3+); null when the broker does not say. */
  totalBytes: number | null;
  usableBytes: number | null;
  partitions: LogDirReplica[];
}

export interface BrokerLogDirs {
  /** Set when the broker could not be asked (or refused as a whole); logDirs is then empty. */
  error: string | null;
  logDirs: LogDir[];
}

export interface PartitionOffset extends PartitionResult {
  offset: number | null;
}

export interface GroupListing {
  groupId: string;
  protocolType: string;
  /** ListGroups v4+ (Kafka 2.6+); null or absent before. */
  groupState?: string | null;
  /** ListGroups v5+ (Kafka 3.8+): classic, consumer, share, streams; null or absent before. */
  groupType?: string | null;
}

export interface GroupDescription {
  groupId: string;
  errorCode: number;
  error: string | null;
  /**
   * Kafka's state, or 'Unknown' on error: classic groups Empty, Stable, PreparingRebalance,
   * CompletingRebalance, Dead; consumer-protocol groups Empty, Assigning, Reconciling, Stable, Dead.
   */
  state: string;
  protocolType: string;
  members: number;
  /** classic (DescribeGroups knew it), consumer (ConsumerGroupDescribe did), unknown (neither could say); absent from fakes that predate it. */
  groupType?: 'classic' | 'consumer' | 'unknown';
  /** The coordinator broker asked, or null when FindCoordinator failed. */
  coordinator: number | null;
}

export interface CommittedOffset extends PartitionResult {
  /** -1 when the group has no committed offset for the partition. */
  offset: number;
}

export interface KafkaAdmin {
  /** Metadata for these topics (null = every topic, [] = brokers and controller only). */
  metadata(topics: string[] | null): Promise<RawMetadata>;
  /** KIP-455, via the controller. Per-partition errors are returned, not thrown. */
  alterPartitionReassignments(targets: ReassignmentTarget[], timeoutMs?: number): Promise<PartitionResult[]>;
  /** Reassignments in progress (all of them when partitions is omitted or null). */
  listPartitionReassignments(partitions?: TopicPartition[] | null): Promise<OngoingReassignment[]>;
  /** KIP-460, via the controller. ELECTION_NOT_NEEDED: the partition already has a valid leader. */
  electLeaders(type: ElectionType, partitions: TopicPartition[], timeoutMs?: number): Promise<PartitionResult[]>;
  /** KIP-339: set | delete | append | subtract, per resource; per-resource errors returned. */
  incrementalAlterConfigs(resources: ConfigAlteration[]): Promise<ConfigResult[]>;
  /** Current values (dynamic and static; broker ones from that broker), all or the named ones. */
  describeConfigs(resources: { type: ConfigResourceType; name: string; names?: string[] }[]): Promise<ConfigDescription[]>;
  /** KIP-113, each broker asked on its own; an unreachable broker gets `error`, never a throw. */
  describeLogDirs(brokerIds: number[], partitions: TopicPartition[] | null): Promise<Map<number, BrokerLogDirs>>;
  /** Earliest / latest (high watermark) offsets from each partition's leader; per-partition errors keep offset null. */
  listOffsets(partitions: TopicPartition[], which: 'earliest' | 'latest' | 'last-stable'): Promise<PartitionOffset[]>;
  /** KIP-664 DescribeProducers, at each leader; per-partition errors (UNSUPPORTED_VERSION before 2.8) returned. */
  describeProducers(partitions: TopicPartition[], options?: { brokerId?: number }): Promise<PartitionProducers[]>;
  /** KIP-664 ListTransactions on every broker; brokers that fail are listed, not thrown. */
  listTransactions(filter?: { producerIds?: number[]; states?: string[] }): Promise<TransactionList>;
  /** KIP-664 DescribeTransactions, at each transactional id's coordinator; per-id errors returned. */
  describeTransactions(transactionalIds: string[]): Promise<TransactionDescription[]>;
  /** The ABORT marker `kafka-transactions.sh abort` writes (WriteTxnMarkers at the partition's leader). */
  abortTransaction(spec: AbortSpec): Promise<{ errorCode: number; error: string | null; leader: number | null }>;
  /** Every group of every broker (throws if a broker in the metadata does not answer). */
  listGroups(): Promise<GroupListing[]>;
  /** State and member count, from each group's coordinator. */
  describeGroups(groupIds: string[]): Promise<GroupDescription[]>;
  /** Committed offsets of one group (all its partitions when partitions is omitted). */
  fetchCommittedOffsets(groupId: string, partitions?: TopicPartition[]): Promise<CommittedOffset[]>;
  /** Commits as an admin (generation -1, no member id): Kafka accepts it only while the group has no active members. */
  commitOffsets(groupId: string, offsets: (TopicPartition & { offset: number })[]): Promise<PartitionResult[]>;
  close(): Promise<void>;
}

export interface AdminOptions {
  /** Budget of each call (calls with a server-side timeout get that plus one request timeout, if longer). */
  timeoutMs: number;
  /** Requests in flight at once within one call. */
  concurrency?: number;
  /**
   * Each partition's leader as the caller saw it a moment ago (a snapshot's
   * Metadata, by tpKey): the first round of a call that only leaders answer
   * (ListOffsets: a follower says NOT_LEADER_OR_FOLLOWER) routes by it instead
   * of asking Metadata again; a partition whose leader moved is retried with
   * fresh Metadata. DescribeProducers, which any replica answers, never uses it.
   */
  knownLeaders?: ReadonlyMap<string, number>;
}
