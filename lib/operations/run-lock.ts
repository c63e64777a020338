// The cluster-level operation lock as a run takes it (the approvals table's
// conditional write, lib/approvals/cluster-lock.ts).
import type { ApprovalService } from '../approvals/service.ts';
import type { Plan } from './types.ts';

/**
 * The cluster-level operation lock (a conditional write in the approvals
 * table): an exclusive kind (one that moves replicas or stops brokers) takes it before its
 * precondition check and gives it back when the run ends; while another run
 * holds it, the run waits (parks), never fails. Absent: only the "no other
 * reassignment" check applies.
 */
export interface OperationLock {
  take(cluster: string, requestId: string): Promise<{ ok: true } | { ok: false; message: string }>;
  release(cluster: string, requestId: string): Promise<void>;
}

/** A run waiting for its cluster's operation lock asks again this often. */
export const LOCK_WAIT_MS = 30_000;

/** The approvals service's cluster lock (lib/approvals/cluster-lock.ts) as the runner takes it. */
export function operationLockOf(approvals: Pick<ApprovalService<Plan>, 'lockCluster' | 'unlockCluster'>): OperationLock {
  return {
    take: async (cluster, id) => {
      const r = await approvals.lockCluster(cluster, id);
      return r.ok ? { ok: true } : { ok: false, message: r.message };
    },
    release: (cluster, id) => approvals.unlockCluster(cluster, id),
  };
}

