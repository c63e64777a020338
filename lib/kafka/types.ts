// What one bounded pass over the cluster's metadata yields. Detectors and
// planners are pure functions of this (plus host probe reports).

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
}

export interface TopicConfigSubset {
  minInsyncReplicas: number;
  uncleanLeaderElectionEnable: boolean;
  cleanupPolicy: string;
  segmentBytes: number | null;
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
  /** True when the snapshot was limited to some topics (plus __consumer_offsets). */
  topicFilter?: string[] | null;
}

export interface BrokerCoordinatorError {
  brokerId: number;
  code: number;
  type: string;
}
