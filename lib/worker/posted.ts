// What a job already said in Slack, keyed by job id. SQS delivers a job again
// when its worker died before finishing (Lambda killed, timeout): the retry
// reads this record and edits the messages the first attempt posted instead of
// posting them twice, and does not post a result that is already there.
// Best-effort like all bookkeeping: if the store cannot answer, the job runs as
// a first attempt.
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { SlackMessage } from '../slack/blocks.ts';
import { mutate, type StateStore } from '../state/state-store.ts';

export interface PostedByJob {
  /** The job's own top-level or thread message (progress, then summary). */
  parent?: { channel: string; ts: string };
  /** The result is in Slack: do not post it again. */
  resultPosted?: boolean;
  /** What the parent message should finally say, for a retry that only has to finish the edit. */
  done?: SlackMessage;
}

/** Longer than SQS keeps retrying a job (visibility timeout × receives). */
const POSTED_TTL_SECONDS = 24 * 3600;
const key = (jobId: string) => `job-posted:${jobId}`;

export async function postedByJob(store: StateStore, jobId: string, log?: Log): Promise<PostedByJob> {
  try {
    return (await store.get<PostedByJob>(key(jobId)))?.value ?? {};
  } catch (err) {
    log?.warn('could not read what this job already posted; running it as a first attempt', { error: errorMessage(err) });
    return {};
  }
}

export async function recordPosted(store: StateStore, jobId: string, patch: PostedByJob, log?: Log): Promise<void> {
  try {
    await mutate<PostedByJob>(store, key(jobId), POSTED_TTL_SECONDS, (cur) => ({ ...cur, ...patch }));
  } catch (err) {
    log?.warn('could not record what this job posted (a retry may post it again)', { error: errorMessage(err) });
  }
}
