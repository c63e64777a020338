// Kafka's error codes, their names and whether a client may retry them: the
// one table every caller reads (admin, snapshot, operations). Names follow
// org.apache.kafka.common.protocol.Errors of Kafka 4.1.1, so what we print
// matches broker logs and Kafka's docs; codes up to 88 carry the messages and
// retriable flags of kafkajs 2.2.4's table (protocol/error.js), taken into
// this file so that code which only compares codes (the Slack bundle's
// operations) does not bundle kafkajs.
import { ResponderError, type FailureClass } from '../runtime/errors.ts';

/** The codes this project acts on by name. */
export const KafkaErrorCode = {
  NONE: 0,
  UNKNOWN_SERVER_ERROR: -1,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  NETWORK_EXCEPTION: 13,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  UNSUPPORTED_VERSION: 35,
  NOT_CONTROLLER: 41,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  /** ElectLeaders: the partition already has the leader the election would give it. */
  ELECTION_NOT_NEEDED: 84,
  /** AlterPartitionReassignments (cancel): nothing is moving for the partition. */
  NO_REASSIGNMENT_IN_PROGRESS: 85,
} as const;

/** [code, Kafka's name, retriable, message] */
const TABLE: readonly (readonly [number, string, boolean, string])[] = [
  [-1, 'UNKNOWN_SERVER_ERROR', false, 'The server experienced an unexpected error when processing the request'],
  [1, 'OFFSET_OUT_OF_RANGE', false, 'The requested offset is not within the range of offsets maintained by the server'],
  [2, 'CORRUPT_MESSAGE', true, 'This message has failed its CRC checksum, exceeds the valid size, or is otherwise corrupt'],
  [3, 'UNKNOWN_TOPIC_OR_PARTITION', true, 'This server does not host this topic-partition'],
  [4, 'INVALID_FETCH_SIZE', false, 'The requested fetch size is invalid'],
  [5, 'LEADER_NOT_AVAILABLE', true, 'There is no leader for this topic-partition as we are in the middle of a leadership election'],
  [6, 'NOT_LEADER_OR_FOLLOWER', true, 'This server is not the leader for that topic-partition'],
  [7, 'REQUEST_TIMED_OUT', true, 'The request timed out'],
  [8, 'BROKER_NOT_AVAILABLE', false, 'The broker is not available'],
  [9, 'REPLICA_NOT_AVAILABLE', true, 'The replica is not available for the requested topic-partition'],
  [10, 'MESSAGE_TOO_LARGE', false, 'The request included a message larger than the max message size the server will accept'],
  [11, 'STALE_CONTROLLER_EPOCH', false, 'The controller moved to another broker'],
  [12, 'OFFSET_METADATA_TOO_LARGE', false, 'The metadata field of the offset request was too large'],
  [13, 'NETWORK_EXCEPTION', true, 'The server disconnected before a response was received'],
  [14, 'COORDINATOR_LOAD_IN_PROGRESS', true, 'The coordinator is loading and hence can\'t process requests for this group'],
  [15, 'COORDINATOR_NOT_AVAILABLE', true, 'The group coordinator is not available'],
  [16, 'NOT_COORDINATOR', true, 'This is not the correct coordinator for this group'],
  [17, 'INVALID_TOPIC_EXCEPTION', false, 'The request attempted to perform an operation on an invalid topic'],
  [18, 'RECORD_LIST_TOO_LARGE', false, 'The request included message batch larger than the configured segment size on the server'],
  [19, 'NOT_ENOUGH_REPLICAS', true, 'Messages are rejected since there are fewer in-sync replicas than required'],
  [20, 'NOT_ENOUGH_REPLICAS_AFTER_APPEND', true, 'Messages are written to the log, but to fewer in-sync replicas than required'],
  [21, 'INVALID_REQUIRED_ACKS', false, 'Produce request specified an invalid value for required acks'],
  [22, 'ILLEGAL_GENERATION', false, 'Specified group generation id is not valid'],
  [23, 'INCONSISTENT_GROUP_PROTOCOL', false, 'The group member\'s supported protocols are incompatible with those of existing members'],
  [24, 'INVALID_GROUP_ID', false, 'The configured groupId is invalid'],
  [25, 'UNKNOWN_MEMBER_ID', false, 'The coordinator is not aware of this member'],
  [26, 'INVALID_SESSION_TIMEOUT', false, 'The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms)'],
  [27, 'REBALANCE_IN_PROGRESS', false, 'The group is rebalancing, so a rejoin is needed'],
  [28, 'INVALID_COMMIT_OFFSET_SIZE', false, 'The committing offset data size is not valid'],
  [29, 'TOPIC_AUTHORIZATION_FAILED', false, 'Not authorized to access topics: [Topic authorization failed]'],
  [30, 'GROUP_AUTHORIZATION_FAILED', false, 'Not authorized to access group: Group authorization failed'],
  [31, 'CLUSTER_AUTHORIZATION_FAILED', false, 'Cluster authorization failed'],
  [32, 'INVALID_TIMESTAMP', false, 'The timestamp of the message is out of acceptable range'],
  [33, 'UNSUPPORTED_SASL_MECHANISM', false, 'The broker does not support the requested SASL mechanism'],
  [34, 'ILLEGAL_SASL_STATE', false, 'Request is not valid given the current SASL state'],
  [35, 'UNSUPPORTED_VERSION', false, 'The version of API is not supported'],
  [36, 'TOPIC_ALREADY_EXISTS', false, 'Topic with this name already exists'],
  [37, 'INVALID_PARTITIONS', false, 'Number of partitions is invalid'],
  [38, 'INVALID_REPLICATION_FACTOR', false, 'Replication-factor is invalid'],
  [39, 'INVALID_REPLICA_ASSIGNMENT', false, 'Replica assignment is invalid'],
  [40, 'INVALID_CONFIG', false, 'Configuration is invalid'],
  [41, 'NOT_CONTROLLER', true, 'This is not the correct controller for this cluster'],
  [42, 'INVALID_REQUEST', false, 'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details'],
  [43, 'UNSUPPORTED_FOR_MESSAGE_FORMAT', false, 'The message format version on the broker does not support the request'],
  [44, 'POLICY_VIOLATION', false, 'Request parameters do not satisfy the configured policy'],
  [45, 'OUT_OF_ORDER_SEQUENCE_NUMBER', false, 'The broker received an out of order sequence number'],
  [46, 'DUPLICATE_SEQUENCE_NUMBER', false, 'The broker received a duplicate sequence number'],
  [47, 'INVALID_PRODUCER_EPOCH', false, 'Producer attempted an operation with an old epoch. Either there is a newer producer with the same transactionalId, or the producer\'s transaction has been expired by the broker'],
  [48, 'INVALID_TXN_STATE', false, 'The producer attempted a transactional operation in an invalid state'],
  [49, 'INVALID_PRODUCER_ID_MAPPING', false, 'The producer attempted to use a producer id which is not currently assigned to its transactional id'],
  [50, 'INVALID_TRANSACTION_TIMEOUT', false, 'The transaction timeout is larger than the maximum value allowed by the broker (as configured by max.transaction.timeout.ms)'],
  [51, 'CONCURRENT_TRANSACTIONS', true, 'The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing'],
  [52, 'TRANSACTION_COORDINATOR_FENCED', false, 'Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer'],
  [53, 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', false, 'Transactional Id authorization failed'],
  [54, 'SECURITY_DISABLED', false, 'Security features are disabled'],
  [55, 'OPERATION_NOT_ATTEMPTED', false, 'The broker did not attempt to execute this operation. This may happen for batched RPCs where some operations in the batch failed, causing the broker to respond without trying the rest'],
  [56, 'KAFKA_STORAGE_ERROR', true, 'Disk error when trying to access log file on the disk'],
  [57, 'LOG_DIR_NOT_FOUND', false, 'The user-specified log directory is not found in the broker config'],
  [58, 'SASL_AUTHENTICATION_FAILED', false, 'SASL Authentication failed'],
  [59, 'UNKNOWN_PRODUCER_ID', false, 'This exception is raised by the broker if it could not locate the producer metadata associated with the producerId in question. This could happen if, for instance, the producer\'s records were deleted because their retention time had elapsed. Once the last records of the producerId are removed, the producer\'s metadata is removed from the broker, and future appends by the producer will return this exception'],
  [60, 'REASSIGNMENT_IN_PROGRESS', false, 'A partition reassignment is in progress'],
  [61, 'DELEGATION_TOKEN_AUTH_DISABLED', false, 'Delegation Token feature is not enabled'],
  [62, 'DELEGATION_TOKEN_NOT_FOUND', false, 'Delegation Token is not found on server'],
  [63, 'DELEGATION_TOKEN_OWNER_MISMATCH', false, 'Specified Principal is not valid Owner/Renewer'],
  [64, 'DELEGATION_TOKEN_REQUEST_NOT_ALLOWED', false, 'Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels'],
  [65, 'DELEGATION_TOKEN_AUTHORIZATION_FAILED', false, 'Delegation Token authorization failed'],
  [66, 'DELEGATION_TOKEN_EXPIRED', false, 'Delegation Token is expired'],
  [67, 'INVALID_PRINCIPAL_TYPE', false, 'Supplied principalType is not supported'],
  [68, 'NON_EMPTY_GROUP', false, 'The group is not empty'],
  [69, 'GROUP_ID_NOT_FOUND', false, 'The group id was not found'],
  [70, 'FETCH_SESSION_ID_NOT_FOUND', true, 'The fetch session ID was not found'],
  [71, 'INVALID_FETCH_SESSION_EPOCH', true, 'The fetch session epoch is invalid'],
  [72, 'LISTENER_NOT_FOUND', true, 'There is no listener on the leader broker that matches the listener on which metadata request was processed'],
  [73, 'TOPIC_DELETION_DISABLED', false, 'Topic deletion is disabled'],
  [74, 'FENCED_LEADER_EPOCH', true, 'The leader epoch in the request is older than the epoch on the broker'],
  [75, 'UNKNOWN_LEADER_EPOCH', true, 'The leader epoch in the request is newer than the epoch on the broker'],
  [76, 'UNSUPPORTED_COMPRESSION_TYPE', false, 'The requesting client does not support the compression type of given partition'],
  [77, 'STALE_BROKER_EPOCH', false, 'Broker epoch has changed'],
  [78, 'OFFSET_NOT_AVAILABLE', true, 'The leader high watermark has not caught up from a recent leader election so the offsets cannot be guaranteed to be monotonically increasing'],
  [79, 'MEMBER_ID_REQUIRED', false, 'The group member needs to have a valid member id before actually entering a consumer group'],
  [80, 'PREFERRED_LEADER_NOT_AVAILABLE', true, 'The preferred leader was not available'],
  [81, 'GROUP_MAX_SIZE_REACHED', false, 'The consumer group has reached its max size. It already has the configured maximum number of members'],
  [82, 'FENCED_INSTANCE_ID', false, 'The broker rejected this static consumer since another consumer with the same group instance id has registered with a different member id'],
  [83, 'ELIGIBLE_LEADERS_NOT_AVAILABLE', true, 'Eligible topic partition leaders are not available'],
  [84, 'ELECTION_NOT_NEEDED', true, 'Leader election not needed for topic partition'],
  [85, 'NO_REASSIGNMENT_IN_PROGRESS', false, 'No partition reassignment is in progress'],
  [86, 'GROUP_SUBSCRIBED_TO_TOPIC', false, 'Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it'],
  [87, 'INVALID_RECORD', false, 'This record has failed the validation on broker and hence be rejected'],
  [88, 'UNSTABLE_OFFSET_COMMIT', true, 'There are unstable offsets that need to be cleared'],
];
const byCode = new Map(TABLE.map(([code, type, retriable, message]) => [code, { type, retriable, message }]));

// Kafka's names past kafkajs's table, from 89 on (Kafka 4.1.1).
const LATER_NAMES = (
  'THROTTLING_QUOTA_EXCEEDED PRODUCER_FENCED RESOURCE_NOT_FOUND DUPLICATE_RESOURCE UNACCEPTABLE_CREDENTIAL INCONSISTENT_VOTER_SET ' +
  'INVALID_UPDATE_VERSION FEATURE_UPDATE_FAILED PRINCIPAL_DESERIALIZATION_FAILURE SNAPSHOT_NOT_FOUND POSITION_OUT_OF_RANGE ' +
  'UNKNOWN_TOPIC_ID DUPLICATE_BROKER_REGISTRATION BROKER_ID_NOT_REGISTERED INCONSISTENT_TOPIC_ID INCONSISTENT_CLUSTER_ID ' +
  'TRANSACTIONAL_ID_NOT_FOUND FETCH_SESSION_TOPIC_ID_ERROR INELIGIBLE_REPLICA NEW_LEADER_ELECTED OFFSET_MOVED_TO_TIERED_STORAGE ' +
  'FENCED_MEMBER_EPOCH UNRELEASED_INSTANCE_ID UNSUPPORTED_ASSIGNOR STALE_MEMBER_EPOCH MISMATCHED_ENDPOINT_TYPE ' +
  'UNSUPPORTED_ENDPOINT_TYPE UNKNOWN_CONTROLLER_ID UNKNOWN_SUBSCRIPTION_ID TELEMETRY_TOO_LARGE INVALID_REGISTRATION ' +
  'TRANSACTION_ABORTABLE INVALID_RECORD_STATE SHARE_SESSION_NOT_FOUND INVALID_SHARE_SESSION_EPOCH FENCED_STATE_EPOCH ' +
  'INVALID_VOTER_KEY DUPLICATE_VOTER VOTER_NOT_FOUND INVALID_REGULAR_EXPRESSION REBOOTSTRAP_REQUIRED STREAMS_INVALID_TOPOLOGY ' +
  'STREAMS_INVALID_TOPOLOGY_EPOCH STREAMS_TOPOLOGY_FENCED SHARE_SESSION_LIMIT_REACHED'
).split(' ');

/** Retriable codes past kafkajs's table (Kafka's RetriableException subclasses). */
const RETRIABLE_LATER = new Set([89, 100, 103, 106]);

export interface KafkaError {
  code: number;
  type: string;
  message: string;
}

/** Kafka's name for an error code (e.g. 14 → COORDINATOR_LOAD_IN_PROGRESS) and kafkajs's message for it. */
export function kafkaError(code: number): KafkaError {
  const e = byCode.get(code);
  return { code, type: e?.type ?? LATER_NAMES[code - 89] ?? `ERROR_${code}`, message: e?.message ?? `Kafka error code ${code}` };
}

/** A later attempt may succeed (Kafka's RetriableException: leader moved, coordinator loading, timeout...). */
export function isRetriable(code: number): boolean {
  return byCode.get(code)?.retriable ?? RETRIABLE_LATER.has(code);
}

/** "NAME: message" for a Kafka error code, null for 0. */
export function describeError(code: number, message?: string | null): string | null {
  if (code === KafkaErrorCode.NONE) return null;
  const e = kafkaError(code);
  return `${e.type}: ${message || e.message}`;
}

/** A whole call failed: no broker answered, or Kafka refused it as a whole (code and type then set). */
export class KafkaAdminError extends ResponderError {
  /** Kafka refusing the call with a code another attempt will not change is fatal; no answer, or a retriable code, is transient. */
  get failure(): FailureClass {
    return this.code !== null && !isRetriable(this.code) ? 'fatal' : 'transient';
  }
  constructor(
    message: string,
    readonly code: number | null = null,
    readonly type: string | null = null,
  ) {
    super(message);
    this.name = 'KafkaAdminError';
  }
}

/** Kafka refused a whole call with `code`. */
export function wholeCallError(what: string, code: number, message?: string | null): KafkaAdminError {
  const e = kafkaError(code);
  return new KafkaAdminError(`${what}: ${e.type}: ${message || e.message}`, code, e.type);
}
