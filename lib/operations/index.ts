export * from './types.ts';
export * from './validate.ts';
export { canonicalJson, digestOf, sha256Hex } from './fingerprint.ts';
export {
  isLeaderless,
  planDrain,
  planExplicitReassignment,
  planLeaderOverride,
  planPreferredElection,
  planRaiseReplicationFactor,
  preconditionsFor,
  type ReassignmentOptions,
} from './planners.ts';
export {
  OPERATION_SCRIPT,
  cliArgs,
  parseElection,
  parseReassignmentList,
  parseReassignmentVerify,
  parseTopicDescribe,
  runKafkaCli,
  type DescribedPartition,
  type KafkaCliAction,
  type OperationHost,
} from './kafka-cli.ts';
export { commandLine, executePlan, stepArgs, type ExecuteDeps, type ExecuteOptions, type ExecutionOutcome, type ExecutionStatus } from './execute.ts';
export { measureReplicas, REPLICA_DATA_SCRIPT, type ReplicaHost } from './replica-data.ts';
export { runApprovedPlan, type RunApprovedInput, type RunApprovedResult } from './run-approved.ts';
