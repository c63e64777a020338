export * from './types.ts';
export * from './validate.ts';
export { canonicalJson, digestOf, sha256Hex } from '../approvals/fingerprint.ts';
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
export { measureReplicas, type ReplicaHost } from './replica-data.ts';
export { runTick, cleanupFinishedRun, cancelOwnReassignments, type OperationIo, type RunReporter, type TickInput, type TickResult } from './runner.ts';
export { runStep, StepFailed, type StepContext, type StepOutcome } from './steps.ts';
export { applyThrottles, removeThrottles, throttleLedgerFor, type ThrottleLedger } from './throttles.ts';
