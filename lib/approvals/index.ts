export * from './types.ts';
export * from './policy.ts';
export { createRequest, decide, isExpired, validApprovals } from './machine.ts';
export { ApprovalStore, DEFAULT_RETENTION_DAYS, type ApprovalStoreOptions, type RefusalNote } from './store.ts';
export { ApprovalService, DEFAULT_LEASE_MS, MAX_PLAN_JSON_CHARS, line, type ClusterLockResult, type ServiceResult } from './service.ts';
export { ClusterLockStore, type ClusterLockRecord } from './cluster-lock.ts';
