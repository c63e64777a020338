export * from './types.ts';
export * from './policy.ts';
export { createRequest, decide, isExpired, validApprovals } from './machine.ts';
export { ApprovalStore, DEFAULT_RETENTION_DAYS, type ApprovalStoreOptions } from './store.ts';
export { AuditLog, type RefusalNote } from './audit-log.ts';
export { ApprovalService, DEFAULT_LEASE_MS, MAX_PLAN_JSON_CHARS, line, type ClusterLockResult, type ServiceResult } from './service.ts';
export { ClusterLockStore, type ClusterLockRecord } from './cluster-lock.ts';
