// What a job already said in Slack, keyed by job id. SQS delivers a job again
// when its worker died before finishing (Lambda killed, timeout): the retry
// reads this record and edits the messages the first attempt posted instead of
// posting them twice, and does not post a result that is already there.
// `posts` and `effects` are lib/worker/post-once.ts's record, one entry per
// purpose (intent before the post, ts after), for jobs that post several messages.
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
  /** Each message posted through postOnce (lib/worker/post-once.ts), by purpose. */
  posts?: Record<string, PurposePost>;
  /** Other effects done once (a timeline event), by purpose. */
  effects?: Record<string, true>;
}

/** One purpose's message: its intent is recorded before it is posted, its ts once Slack answered. */
export interface PurposePost {
  channel: string;
  thread_ts?: string;
  /** A Slack ts shortly before the first attempt to post it: a retry looks for it from here on. */
  since: string;
  ts?: string;
  /** An upload's file name, chosen before it was uploaded: what a retry looks for. */
  file?: string;
}

/** Longer than SQS keeps retrying a job (visibility timeout × receives). */
const POSTED_TTL_SECONDS = 7 * 24 * 3600;
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

/** Records one purpose's message (intent, then ts), merged with what other purposes recorded. */
export async function recordPurposePost(store: StateStore, jobId: string, purpose: string, post: PurposePost, log?: Log): Promise<void> {
  try {
    await mutate<PostedByJob>(store, key(jobId), POSTED_TTL_SECONDS, (cur) => ({ ...cur, posts: { ...cur?.posts, [purpose]: post } }));
  } catch (err) {
    log?.warn('could not record a message this job posts (a retry may post it again)', { purpose, error: errorMessage(err) });
  }
}

/** Records that an effect other than a post is done. */
export async function recordEffect(store: StateStore, jobId: string, purpose: string, log?: Log): Promise<void> {
  try {
    await mutate<PostedByJob>(store, key(jobId), POSTED_TTL_SECONDS, (cur) => ({ ...cur, effects: { ...cur?.effects, [purpose]: true } }));
  } catch (err) {
    log?.warn('could not record what this job did (a retry may do it again)', { purpose, error: errorMessage(err) });
  }
}
