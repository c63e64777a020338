// One message per purpose, however often SQS delivers the job. A worker can die
// between Slack accepting a post and the job writing down its ts; the retry
// must then neither post a second copy (a second approvable plan nobody edits
// again) nor skip what the dead attempt never reached (a full list the plan
// message points to). So each post, named by the job and a purpose:
//   1. ts recorded        → it is in Slack: return it, post nothing;
//   2. intent recorded    → an earlier attempt may have posted it: look for it
//      in its channel or thread by its metadata (conversations.history /
//      replies, include_all_metadata); found → record the ts and return it;
//   3. otherwise          → record the intent, post with that metadata, record the ts.
// Each purpose stands alone, so a retry completes whichever are missing rather
// than stopping at the first one it finds done.
//
// Bookkeeping stays best-effort (lib/worker/posted.ts): a store that cannot
// answer, or a lookup Slack refuses (no history scope, not in the channel),
// leads to posting again, logged, never to a message not posted at all. Two
// attempts running at the same time (not a dead one and its retry) can both post.
import type { MessageMetadata } from '@slack/types';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { FileUpload, OutgoingMessage, SharedFile, SlackPoster } from '../slack/web.ts';
import type { StateStore } from '../state/state-store.ts';
import { postedByJob, recordEffect, recordPurposePost, type PostedByJob, type PurposePost } from './posted.ts';

/** Slack's metadata event type on every message posted once per purpose. */
export const POST_EVENT_TYPE = 'kafka_responder_post';

/** How far our clock may run ahead of Slack's: the lookup starts this much before the intent. */
const CLOCK_SKEW_SECONDS = 120;

/** Where a purpose's message is; `earlier` when an earlier attempt had posted it (the caller may bring it up to date). */
export interface OncePosted {
  channel: string;
  ts: string;
  earlier?: true;
}

export interface OncePoster {
  /** Posts `message` unless this scope's `purpose` is already in Slack; where it is either way. */
  post(purpose: string, message: OutgoingMessage): Promise<OncePosted>;
  /**
   * post(), building the message only when it has to be posted (an audit's
   * answer is not recomputed when Slack already shows it); a null message
   * posts nothing and records nothing.
   */
  postBuilt(purpose: string, build: () => Promise<OutgoingMessage | null>): Promise<OncePosted | null>;
  /** Runs `effect` unless done for this purpose (recorded after it ran: a death in between repeats it). */
  once(purpose: string, effect: () => Promise<void>): Promise<void>;
  /**
   * Uploads a file unless done for this purpose. A file carries no metadata,
   * so its name is the intent: recorded before the upload, looked for among
   * the files shared in that channel or thread by a retry that finds the
   * intent without the done flag; the retry uploads under the same name.
   */
  upload(purpose: string, file: FileUpload): Promise<void>;
  /** Whether `purpose` (an effect, an upload or a mark) is recorded as done: no Slack call. */
  done(purpose: string): boolean;
  /** Whether a post for `purpose` was attempted (its intent recorded), posted or not: no Slack call. */
  attempted(purpose: string): boolean;
  /** Records `purpose` as done without an effect (a step reached). */
  mark(purpose: string): Promise<void>;
  /** What the job recorded before this attempt (its `done` message, legacy fields). */
  readonly recorded: PostedByJob;
}

export interface OnceDeps {
  slack: SlackPoster;
  store: StateStore;
  log: Log;
}

const slackTs = (ms: number) => (ms / 1000).toFixed(6);

/** The metadata that names one purpose's message. */
export function purposeMetadata(scope: string, purpose: string): MessageMetadata {
  return { event_type: POST_EVENT_TYPE, event_payload: { key: `${scope}/${purpose}` } };
}

/**
 * Posts for `scope`: the job's id, or what identifies the job's result when
 * several jobs may produce the same one (a plan's request id).
 */
/** The earlier attempt's message, if Slack shows it; null when it is not there or Slack cannot say. */
async function lookUpEarlier({ slack, log }: OnceDeps, purpose: string, intent: PurposePost, wanted: MessageMetadata | SharedFile) {
  if (!slack.find) {
    log.warn('cannot look for a message an earlier attempt may have posted; posting it', { purpose });
    return null;
  }
  try {
    return await slack.find({ channel: intent.channel, ...(intent.thread_ts ? { thread_ts: intent.thread_ts } : {}), oldest: intent.since }, wanted);
  } catch (err) {
    // Posting again may leave a copy; not posting could leave approvers without the message.
    log.error('could not look for a message an earlier attempt may have posted (channels:history / groups:history scope?); posting it again', { purpose, error: errorMessage(err) });
    return null;
  }
}

export async function oncePoster(deps: OnceDeps, scope: string): Promise<OncePoster> {
  const { slack, store, log } = deps;
  const known: PostedByJob = await postedByJob(store, scope, log);
  const posts: Record<string, PurposePost> = { ...known.posts };
  const effects = new Set(Object.keys(known.effects ?? {}));

  const lookUp = (purpose: string, intent: PurposePost, wanted: MessageMetadata | SharedFile) => lookUpEarlier(deps, purpose, intent, wanted);

  /** The recorded ts, or the message the earlier attempt posted if Slack shows it; null: not posted (as far as we can tell). */
  async function already(purpose: string): Promise<OncePosted | null> {
    const earlier = posts[purpose];
    if (earlier?.ts) return { channel: earlier.channel, ts: earlier.ts, earlier: true };
    // Only a retry that recorded the intent and not the ts reads Slack: a first attempt never does.
    if (!earlier) return null;
    const found = await lookUp(purpose, earlier, purposeMetadata(scope, purpose));
    if (!found) return null;
    log.info('found the message an earlier attempt posted', { purpose, ts: found.ts });
    posts[purpose] = { ...earlier, ts: found.ts };
    await recordPurposePost(store, scope, purpose, posts[purpose], log);
    return { ...found, earlier: true };
  }

  async function send(purpose: string, message: OutgoingMessage): Promise<OncePosted> {
    const earlier = posts[purpose];
    // The first intent's time stays: the dead attempt posted after it, however late this retry is.
    const intent: PurposePost = earlier ?? { channel: message.channel, ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}), since: slackTs(Date.now() - CLOCK_SKEW_SECONDS * 1000) };
    if (!earlier) await recordPurposePost(store, scope, purpose, intent, log);
    posts[purpose] = intent;
    const sent = await slack.post({ ...message, metadata: purposeMetadata(scope, purpose) });
    posts[purpose] = { ...intent, channel: sent.channel, ts: sent.ts };
    await recordPurposePost(store, scope, purpose, posts[purpose], log);
    return sent;
  }

  async function uploadOnce(purpose: string, file: FileUpload): Promise<void> {
    if (effects.has(purpose)) return;
    const key = `upload:${purpose}`;
    const earlier = posts[key];
    if (earlier?.file) {
      const found = await lookUp(purpose, earlier, { fileName: earlier.file });
      if (found) {
        log.info('found the file an earlier attempt uploaded', { purpose, file: earlier.file });
        effects.add(purpose);
        return recordEffect(store, scope, purpose, log);
      }
    }
    const intent: PurposePost = earlier ?? { channel: file.channel, ...(file.thread_ts ? { thread_ts: file.thread_ts } : {}), since: slackTs(Date.now() - CLOCK_SKEW_SECONDS * 1000), file: file.filename };
    if (!earlier) {
      posts[key] = intent;
      await recordPurposePost(store, scope, key, intent, log);
    }
    await once(purpose, () => slack.upload({ ...file, filename: intent.file ?? file.filename }));
  }

  async function once(purpose: string, effect: () => Promise<void>): Promise<void> {
    if (effects.has(purpose)) return;
    await effect();
    effects.add(purpose);
    await recordEffect(store, scope, purpose, log);
  }

  return {
    recorded: known,
    async post(purpose, message) {
      return (await already(purpose)) ?? send(purpose, message);
    },
    async postBuilt(purpose, build) {
      const found = await already(purpose);
      if (found) return found;
      const message = await build();
      return message ? send(purpose, message) : null;
    },
    once,
    upload: uploadOnce,
    done: (purpose) => effects.has(purpose),
    attempted: (purpose) => purpose in posts,
    mark: (purpose) => once(purpose, async () => {}),
  };
}
