// Operations the bot finished on a cluster, kept two hours for the
// diagnosis's "changed in the last hour" (lib/diagnose/what-changed.ts). One
// item per run in the list `cluster-ops:<cluster>`; bookkeeping only, never
// failing the run that records it.
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { StateStore } from './state-store.ts';

export interface FinishedOperation {
  requestId: string;
  kind: string;
  title: string;
  /** SUCCEEDED, FAILED, CANCELLED, STALE. */
  outcome: string;
  at: string;
}

const TTL_SECONDS = 2 * 3600;
const MAX_LISTED = 100;

export async function recordFinishedOperation(store: StateStore, cluster: string, op: FinishedOperation, log?: Log): Promise<void> {
  try {
    await store.put(`cluster-op:${cluster}:${op.requestId}`, op, TTL_SECONDS, `cluster-ops:${cluster}`);
  } catch (err) {
    log?.warn('could not record the finished operation for the diagnosis (the run goes on)', { error: errorMessage(err) });
  }
}

export async function finishedOperations(store: StateStore, cluster: string): Promise<FinishedOperation[]> {
  return (await store.list<FinishedOperation>(`cluster-ops:${cluster}`, MAX_LISTED)).map((i) => i.value);
}
