// The ack path's last step for commands that hand work to the worker: record
// the job for `/kafka status` (best-effort), enqueue it, and if the queue
// refuses, take the record back and tell the user, so nothing is left
// half-done: no status entry for a job that will never run.
import type { Job } from '../queue/job.ts';
import { errorMessage } from '../runtime/errors.ts';
import { finishActivity, startActivity, type Activity } from '../state/activity.ts';
import { ephemeral } from './commands.ts';
import type { AckDeps, CommandReply } from './registry.ts';

/** Null when the job is queued; otherwise the reply that tells the user it was not. */
export async function enqueueTracked(deps: AckDeps, job: Job, activity: Omit<Activity, 'id' | 'kind' | 'correlationId' | 'startedAt'>): Promise<CommandReply | null> {
  await startActivity(deps.store, { id: job.id, kind: job.kind, correlationId: job.correlationId, startedAt: job.enqueuedAt, ...activity }, deps.log);
  try {
    await deps.queue.enqueue(job);
    return null;
  } catch (err) {
    deps.log.error('could not enqueue the job; nothing was started', { jobId: job.id, kind: job.kind, error: errorMessage(err) });
    await finishActivity(deps.store, job.id, deps.log);
    return ephemeral(
      `:x: I could not queue this request (the job queue did not accept it), so nothing was started. Please try again in a moment. (correlation id \`${job.correlationId}\`)`,
    );
  }
}
