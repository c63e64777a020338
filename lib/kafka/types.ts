// What one bounded pass over the cluster's metadata yields. Detectors and
// planners are pure functions of this (plus host probe reports).
import type { QuorumView } from './quorum-view.ts';

/** A registered broker, fenced or not (KIP-1073; the pure side is registered-brokers-view.ts). */
export interface RegisteredBroker {
  id: number;
  host: string;
  port: number;
  rack: string | null;
  fenced: boolean;
}

/** Every registered broker, as one broker's DescribeCluster v2 answered. */
export interface RegisteredBrokersView {
  /**
   * read: `brokers` is every registration; unsupported: this Kafka line cannot
   * list fenced brokers (before 4.0, ZooKeeper mode), not an error; failed: the
   * read failed (`reason`).
   */
  status: 'read' | 'unsupported' | 'failed';
  brokers: RegisteredBroker[];
  reason: string | null;
  /** The broker that answered (read), null otherwise. */
  answeredBy: number | null;
}

export interface BrokerInfo {
  id: number;
  host: string;
  port: number;
  rack?: string | null;
}

export interface PartitionState {
  partition: number;
  /** -1 when the partition has no leader. */
  leader: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
  /** Replicas being added by an in-progress reassignment (kafka-topics.sh does not count them as missing). */
  addingReplicas?: number[];
  /**
   * Eligible leader replicas (KIP-966): out of the ISR, but with every committed
   * write, so the controller may elect them cleanly once the ISR is empty.
   * Absent when not read (DescribeTopicPartitions unsupported or failed): unknown, not empty.
   */
  elr?: number[];
  /**
   * Last known ELR: with ELR on, Kafka 4.x keeps here the leader the partition had when it
   * lost its last one. It may have lost data since (unclean shutdown, wiped disk), yet the
   * controller elects it when it returns if the ISR and ELR are empty. Absent when not read.
   */
  lastKnownElr?: number[];
}

export interface TopicConfigSubset {
  minInsyncReplicas: number;
  uncleanLeaderElectionEnable: boolean;
  cleanupPolicy: string;
  segmentBytes: number | null;
  /** Config names set on the topic itself (source DYNAMIC_TOPIC_CONFIG), as opposed to inherited broker defaults. */
  overrides?: string[];
}

export interface TopicState {
  name: string;
  internal: boolean;
  partitions: PartitionState[];
  /** null when the config could not be described (timeout, authorization). */
  config: TopicConfigSubset | null;
}

export interface GroupState {
  groupId: string;
  /** Group state as the coordinator reports it, or "Unknown" when it answered with an error. */
  state: string;
  protocolType: string;
  /** Coordinator broker id when known. */
  coordinator: number | null;
  /** __consumer_offsets partition holding the group: abs(javaHash(groupId)) % offsetsTopicPartitions. */
  offsetsPartition: number;
  /** Error the coordinator answered with, e.g. COORDINATOR_LOAD_IN_PROGRESS / NOT_COORDINATOR. */
  error: { code: number; type: string; message: string } | null;
  /** Members the coordinator lists (absent when not described). */
  members?: number;
  /**
   * The group's type, i.e. its protocol: ListGroups v5's GroupType (Kafka 3.8+), else
   * which describe API knew it (brokers without ConsumerGroupDescribe have classic groups only).
   * classic: DescribeGroups; consumer: KIP-848's group.protocol=consumer (ConsumerGroupDescribe);
   * share: KIP-932 (ShareGroupDescribe; no committed offsets); streams: KIP-1071.
   * Absent in snapshots made before it was read.
   */
  groupType?: GroupType;
  /** consumer and share groups: the group epoch and the epoch of the assignment the members are moving to. */
  epoch?: { group: number; assignment: number };
  /** consumer and share groups: each member and the partitions it owns now (absent when not described). */
  assignments?: GroupMemberAssignment[];
}

export const GROUP_TYPES = ['classic', 'consumer', 'share', 'streams', 'unknown'] as const;
export type GroupType = (typeof GROUP_TYPES)[number];

export interface GroupMemberAssignment {
  memberId: string;
  clientId: string;
  clientHost: string;
  memberEpoch: number;
  /** Partitions it owns now, by topic. */
  partitions: { topic: string; partitions: number[] }[];
}

/** One group's committed offsets (OffsetFetch on its coordinator); partitions without a commit are left out. */
export interface GroupOffsets {
  groupId: string;
  offsets: { topic: string; partition: number; offset: number }[];
  /** Why the offsets could not be read (the group is then left out of consumer findings). */
  error: string | null;
}

/** A partition's log start and end (high watermark) from its leader (ListOffsets); null when unknown. */
export interface LogOffsets {
  topic: string;
  partition: number;
  start: number | null;
  end: number | null;
}

/** Committed offsets and log offsets read at one moment. */
export interface ConsumerSample {
  /** Epoch ms. */
  at: number;
  groups: GroupOffsets[];
  /** Only the partitions some group committed to. Start offsets are read in the first sample only. */
  logOffsets: LogOffsets[];
}

export interface SnapshotError {
  /** What was being read: "metadata", "configs", "groups", "broker:2"... */
  scope: string;
  message: string;
}

export interface ClusterSnapshot {
  takenAt: string;
  clusterId: string | null;
  controllerId: number | null;
  /** Brokers the cluster currently lists as live. */
  brokers: BrokerInfo[];
  topics: TopicState[];
  groups: GroupState[];
  offsetsTopicPartitions: number;
  /** Brokers that are listed but did not answer a direct request. */
  unreachableBrokers: number[];
  errors: SnapshotError[];
  partial: boolean;
  /**
   * Brokers whose ListGroups answered with a coordinator error. Since 4.x a broker
   * still loading any __consumer_offsets partition answers ListGroups with
   * COORDINATOR_LOAD_IN_PROGRESS and lists no group at all, so this is often the
   * only metadata-side sign of a load that never finishes.
   */
  coordinatorErrors?: BrokerCoordinatorError[];
  /**
   * Where the partitions' leader / replicas / ISR came from: DescribeTopicPartitions
   * (KRaft 3.8+, with ELR and last known ELR) or Metadata alone (ZooKeeper mode,
   * KRaft before 3.8, or the read failed: see errors, scope "elr"). Absent in
   * snapshots made before ELR was read.
   */
  partitionSource?: 'DescribeTopicPartitions' | 'Metadata';
  /** True when the snapshot was limited to some topics (plus __consumer_offsets). */
  topicFilter?: string[] | null;
  /**
   * Consumer positions, oldest first: one sample, or two a short window apart
   * when some group lagged in the first (lag is judged over samples, not one number).
   */
  consumerSamples?: ConsumerSample[];
  /** Open transactions and last stable offsets (KIP-664), read after the rest (lib/kafka/transactions.ts). */
  transactions?: TransactionsView;
  /**
   * Every registered broker, fenced ones included (DescribeCluster v2, KIP-1073, Kafka 4.0 KRaft;
   * lib/kafka/registered-brokers-view.ts). Absent in snapshots made before it was read.
   */
  registeredBrokers?: RegisteredBrokersView;
  /**
   * The KRaft controller quorum (DescribeQuorum through the brokers, lib/kafka/quorum-read.ts): leader, epoch,
   * high watermark, voters and observers with their lag. Absent in snapshots made before it was read.
   */
  quorum?: QuorumView;
}

export interface BrokerCoordinatorError {
  brokerId: number;
  code: number;
  type: string;
}

/**
 * What the coordinator says about an open transaction's producer: looked up by
 * producer id (ListTransactions on every broker), then described at the
 * transactional id's coordinator (DescribeTransactions).
 */
export interface CoordinatorView {
  /** found: described; not-found: no coordinator lists this producer id (or knows its transactional id); unknown: could not ask. */
  lookup: 'found' | 'not-found' | 'unknown';
  transactionalId: string | null;
  coordinator: number | null;
  /** Ongoing, PrepareCommit, CompleteCommit... as the coordinator names it. */
  state: string | null;
  producerId: number | null;
  producerEpoch: number | null;
  /** Epoch ms, -1 when no transaction runs. */
  startTimeMs: number | null;
  timeoutMs: number | null;
  /** Does the coordinator's current transaction still include this partition (so it will write its marker)? */
  includesPartition: boolean;
  /** Why lookup is unknown. */
  reason?: string;
}

/** An open transaction in one partition's log (DescribeProducers at the leader). */
export interface OpenTransaction {
  producerId: number;
  producerEpoch: number;
  /** -1 when the partition never had a marker from this producer's coordinator. */
  coordinatorEpoch: number;
  /** The transaction's first offset: the LSO cannot pass it. */
  firstOffset: number;
  /** Epoch ms of the producer's last write here (Kafka's find-hanging measures age from it). */
  lastTimestamp: number;
  coordinatorView: CoordinatorView;
}

export interface PartitionTransactions {
  topic: string;
  partition: number;
  leader: number | null;
  /** Samples of high watermark (READ_UNCOMMITTED) and last stable offset (READ_COMMITTED), oldest first. */
  samples: { at: number; highWatermark: number | null; lastStableOffset: number | null }[];
  openTransactions: OpenTransaction[];
}

/** Transactions in the partitions read: only those with an open transaction or an LSO behind the high watermark. */
export interface TransactionsView {
  /** unavailable: the brokers do not serve KIP-664 (before 2.8: no DescribeProducers); failed: could not be read. */
  status: 'ok' | 'unavailable' | 'failed';
  reason: string | null;
  /** Epoch ms when DescribeProducers was read. */
  at: number;
  /** The brokers' transaction.max.timeout.ms; null when unknown. */
  maxTransactionTimeoutMs: number | null;
  partitions: PartitionTransactions[];
  errors: string[];
  /** How the coordinators of the open transactions were looked up; absent when none was (no open transaction, or an older view). */
  coordinators?: CoordinatorLookup;
}

/** Where the coordinators were asked (ListTransactions on every broker): who did not answer, which __transaction_state partitions have no leader. */
export interface CoordinatorLookup {
  /** __transaction_state's partition count as the metadata shows it; null when the topic was not there. */
  partitions: number | null;
  /** __transaction_state partitions without a live leader, with their replicas: their coordinators cannot answer. */
  leaderless: { partition: number; replicas: number[] }[];
  /** Brokers whose ListTransactions failed (the transactions their coordinators hold are not known). */
  silentBrokers: number[];
}
