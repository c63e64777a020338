// What the worker says to Slack: post, update, upload a file, answer a
// response_url. One small interface so tests and the local server can point it
// at a stub (SLACK_API_URL) and the worker stays free of WebClient details.
//
// Delivery never drops silently. WebClient's own retries are off (its default
// is ten retries over thirty minutes, and on 429 it pauses every call of the
// client); instead each call here:
//   - waits out a 429's Retry-After, retries 5xx, network errors and Slack's
//     own "try again" errors with jittered exponential backoff, within a budget;
//   - goes through its channel's lane: calls to one channel run one at a time
//     in the order they were made (so a thread reads in order), and posts are
//     spaced at Slack's pace (about one message a second per channel);
//   - when it still fails, is logged as an error and recorded for
//     `/kafka status` (lib/state/activity.ts), then the error is thrown.
import { ErrorCode, WebClient } from '@slack/web-api';
import type { KnownBlock, MessageMetadata } from '@slack/types';
import type { Log } from '../runtime/log.ts';
import { ResponderError, errorMessage } from '../runtime/errors.ts';
import { recordUndelivered } from '../state/activity.ts';
import type { StateStore } from '../state/state-store.ts';
import { jitteredBackoffMs } from '../state/state-store.ts';

export interface OutgoingMessage {
  channel: string;
  text: string;
  blocks?: KnownBlock[];
  thread_ts?: string;
  /** Invisible to people; lets a retried job find this message again (find()). */
  metadata?: MessageMetadata;
}

/** Where to look for a message: a channel's top level, or one thread; only messages after `oldest` (a Slack ts). */
export interface LookupScope {
  channel: string;
  thread_ts?: string;
  oldest: string;
}

/**
 * A file for a channel or thread, through Slack's files.uploadV2 flow
 * (files.getUploadURLExternal, the upload, files.completeUploadExternal):
 * text (a report, a timeline) or bytes (a PNG graph).
 */
export interface FileUpload {
  channel: string;
  thread_ts?: string;
  filename: string;
  title: string;
  content: string | Uint8Array;
  /** A message posted with the file. */
  initialComment?: string;
}

export interface SlackPoster {
  post(message: OutgoingMessage): Promise<{ channel: string; ts: string }>;
  update(message: OutgoingMessage & { ts: string }): Promise<void>;
  upload(file: FileUpload): Promise<void>;
  respond(responseUrl: string, body: { text: string; response_type?: 'ephemeral' | 'in_channel'; blocks?: KnownBlock[]; replace_original?: boolean }): Promise<void>;
  /**
   * The message posted with this metadata (event_type and every event_payload
   * field equal), null when it is not there. Throws when Slack cannot say (no
   * history scope, not in the channel, more messages than one lookup reads).
   * Optional: a poster without it cannot tell, and its callers post again.
   */
  find?(where: LookupScope, wanted: MessageMetadata | SharedFile): Promise<{ channel: string; ts: string } | null>;
}

/** A file shared there under this name (a file carries no metadata: its name, chosen before the upload, names it). */
export interface SharedFile {
  fileName: string;
}

/** Pages of 200 a lookup reads at most: a retry comes within minutes of its attempt, far fewer messages than this. */
const LOOKUP_PAGES = 5;

function matches(message: { metadata?: unknown; files?: { name?: string }[] }, wanted: MessageMetadata | SharedFile): boolean {
  if ('fileName' in wanted) return (message.files ?? []).some((f) => f.name === wanted.fileName);
  return sameMetadata(message.metadata, wanted);
}

function sameMetadata(found: unknown, wanted: MessageMetadata): boolean {
  const f = found as Partial<MessageMetadata> | undefined;
  if (f?.event_type !== wanted.event_type || !f.event_payload) return false;
  return Object.entries(wanted.event_payload).every(([k, v]) => f.event_payload![k] === v);
}

export interface DeliveryOptions {
  /** Least time between two messages posted in one channel (Slack: about 1 s). */
  postIntervalMs?: number;
  /** Tries per call, the first included. */
  maxAttempts?: number;
  /** Longest time one call may spend waiting between tries (Retry-After included). */
  retryBudgetMs?: number;
  /** First backoff step for 5xx and network errors; doubles per try, jittered. */
  backoffMs?: number;
  /** Where messages given up on are recorded for `/kafka status`. */
  store?: StateStore;
  log?: Log;
}

/** Slack platform errors that mean "not now" rather than "never". */
const TRANSIENT_PLATFORM_ERRORS = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/** How long to wait before trying again, or null when trying again cannot help. */
export function retryDelayMs(err: unknown, attempt: number, backoffMs: number): number | null {
  const e = err as { code?: string; retryAfter?: number; statusCode?: number; data?: { error?: string }; status?: number };
  if (e.code === ErrorCode.RateLimitedError) return Math.max(1, e.retryAfter ?? 1) * 1000;
  const jittered = backoffMs + jitteredBackoffMs(attempt, backoffMs, 30_000);
  if (e.code === ErrorCode.HTTPError) return (e.statusCode ?? 0) >= 500 ? jittered : null;
  if (e.code === ErrorCode.RequestError) return jittered;
  if (e.code === ErrorCode.PlatformError) return TRANSIENT_PLATFORM_ERRORS.has(e.data?.error ?? '') ? jittered : null;
  // response_url answers (plain fetch): 429 and 5xx are worth another try.
  if (e.status !== undefined) return e.status === 429 || e.status >= 500 ? jittered : null;
  return null;
}

class ResponseUrlError extends ResponderError {
  readonly failure = 'transient';
  constructor(readonly status: number) {
    super(`response_url answered ${status}`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One lane per channel: calls run one at a time, in order; posts keep their distance. */
class ChannelLanes {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly lastPostAt = new Map<string, number>();

  constructor(private readonly postIntervalMs: number) {}

  run<T>(channel: string, paced: boolean, call: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(channel) ?? Promise.resolve();
    const next = previous.then(
      () => this.turn(channel, paced, call),
      () => this.turn(channel, paced, call),
    );
    const tail = next.catch(() => {});
    this.tails.set(channel, tail);
    void tail.then(() => {
      if (this.tails.get(channel) === tail) this.tails.delete(channel);
    });
    return next;
  }

  private async turn<T>(channel: string, paced: boolean, call: () => Promise<T>): Promise<T> {
    if (paced) {
      const wait = (this.lastPostAt.get(channel) ?? 0) + this.postIntervalMs - Date.now();
      if (wait > 0) await sleep(wait);
    }
    try {
      return await call();
    } finally {
      if (paced) {
        this.lastPostAt.set(channel, Date.now());
        // Bounded: the local server runs for days over many channels.
        if (this.lastPostAt.size > 1000) this.lastPostAt.delete(this.lastPostAt.keys().next().value!);
      }
    }
  }
}

/** What a call is, for its log lines and (record: true) the undelivered record. */
interface DeliveryCall {
  method: string;
  channel: string;
  threadTs?: string;
  text: string;
  record: boolean;
}

type Deliver = <T>(what: DeliveryCall, call: () => Promise<T>) => Promise<T>;

/** One call with its retries; when it gives up, the failure is logged and (for messages) recorded. */
function deliverer(opts: { maxAttempts: number; budgetMs: number; backoffMs: number; log: Log | undefined; store: StateStore | undefined }): Deliver {
  const { maxAttempts, budgetMs, backoffMs, log, store } = opts;
  return async function deliver<T>(what: DeliveryCall, call: () => Promise<T>): Promise<T> {
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        const delay = retryDelayMs(err, attempt, backoffMs);
        if (delay !== null && attempt < maxAttempts && waited + delay <= budgetMs) {
          log?.warn('slack call failed; retrying', { method: what.method, channel: what.channel, attempt, delayMs: delay, error: errorMessage(err) });
          waited += delay;
          await sleep(delay);
          continue;
        }
        log?.error(what.method.startsWith('conversations.') ? 'slack lookup failed' : 'slack message not delivered', { method: what.method, channel: what.channel, threadTs: what.threadTs, attempts: attempt, error: errorMessage(err), text: what.text.slice(0, 200) });
        if (what.record && store) {
          await recordUndelivered(
            store,
            { method: what.method, channel: what.channel, ...(what.threadTs ? { threadTs: what.threadTs } : {}), excerpt: what.text.slice(0, 200), error: errorMessage(err), at: new Date().toISOString() },
            log,
          );
        }
        throw err;
      }
    }
  };
}

/** The message (or shared file) `wanted` in that channel or thread since `oldest`, reading at most LOOKUP_PAGES pages. */
function looker(client: WebClient, lanes: ChannelLanes, deliver: Deliver) {
  return async function lookup(where: LookupScope, wanted: MessageMetadata | SharedFile): Promise<{ channel: string; ts: string } | null> {
    const method = where.thread_ts ? 'conversations.replies' : 'conversations.history';
    let cursor: string | undefined;
    for (let page = 0; page < LOOKUP_PAGES; page++) {
      const args = { channel: where.channel, oldest: where.oldest, include_all_metadata: true, limit: 200, ...(cursor ? { cursor } : {}) };
      // In the channel's lane: the posts this process made before are in Slack by the time it reads.
      const out = await lanes.run(where.channel, false, () =>
        deliver({ method, channel: where.channel, ...(where.thread_ts ? { threadTs: where.thread_ts } : {}), text: 'fileName' in wanted ? wanted.fileName : wanted.event_type, record: false }, () =>
          where.thread_ts ? client.conversations.replies({ ...args, ts: where.thread_ts }) : client.conversations.history(args),
        ),
      );
      const hit = out.messages?.find((m) => m.ts && matches(m as { metadata?: unknown; files?: { name?: string }[] }, wanted));
      if (hit?.ts) return { channel: where.channel, ts: hit.ts };
      cursor = out.response_metadata?.next_cursor;
      if (!out.has_more || !cursor) return null;
    }
    throw new Error(`${method}: more than ${LOOKUP_PAGES * 200} messages since the post was attempted; cannot tell whether it is there`);
  };
}

export function webApiPoster(token: string, slackApiUrl?: string, options: DeliveryOptions = {}): SlackPoster {
  const client = new WebClient(token, {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    // Retries and rate limits are handled below, per call and per channel.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
  });
  const lanes = new ChannelLanes(options.postIntervalMs ?? 1000);
  const maxAttempts = options.maxAttempts ?? 8;
  const budgetMs = options.retryBudgetMs ?? 90_000;
  const backoffMs = options.backoffMs ?? 250;
  const { log, store } = options;

  const deliver = deliverer({ maxAttempts, budgetMs, backoffMs, log, store });
  const lookup = looker(client, lanes, deliver);

  return {
    post(m) {
      return lanes.run(m.channel, true, () =>
        deliver({ method: 'chat.postMessage', channel: m.channel, ...(m.thread_ts ? { threadTs: m.thread_ts } : {}), text: m.text, record: true }, async () => {
          const out = await client.chat.postMessage({ channel: m.channel, text: m.text, ...(m.blocks ? { blocks: m.blocks } : {}), ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}), ...(m.metadata ? { metadata: m.metadata } : {}) });
          if (!out.ts || !out.channel) throw new Error('chat.postMessage returned no ts');
          return { channel: out.channel, ts: out.ts };
        }),
      );
    },
    update(m) {
      return lanes.run(m.channel, false, () =>
        deliver({ method: 'chat.update', channel: m.channel, threadTs: m.ts, text: m.text, record: true }, async () => {
          await client.chat.update({ channel: m.channel, ts: m.ts, text: m.text, ...(m.blocks ? { blocks: m.blocks } : {}) });
        }),
      );
    },
    upload(f) {
      const body = typeof f.content === 'string' ? { content: f.content } : { file: Buffer.from(f.content) };
      const common = { channel_id: f.channel, filename: f.filename, title: f.title, ...body, ...(f.initialComment ? { initial_comment: f.initialComment } : {}) };
      return lanes.run(f.channel, true, () =>
        deliver({ method: 'files.uploadV2', channel: f.channel, ...(f.thread_ts ? { threadTs: f.thread_ts } : {}), text: f.title, record: true }, async () => {
          await client.files.uploadV2(f.thread_ts ? { ...common, thread_ts: f.thread_ts } : common);
        }),
      );
    },
    async find(where, wanted) {
      try {
        return await lookup(where, wanted);
      } catch (err) {
        // A bot posts in public channels it was never invited to (chat:write.public), but reads
        // history only where it is a member: join (channels:join), then look again.
        if ((err as { data?: { error?: string } }).data?.error !== 'not_in_channel') throw err;
        await deliver({ method: 'conversations.join', channel: where.channel, text: 'join to look up a post', record: false }, () => client.conversations.join({ channel: where.channel }));
        return lookup(where, wanted);
      }
    },
    respond(url, body) {
      return deliver({ method: 'response_url', channel: '', text: body.text, record: false }, async () => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(5000),
        });
        if (!res.ok) throw new ResponseUrlError(res.status);
      });
    },
  };
}

/** Members of a Slack user group (usergroups.users.list), for approver groups in the worker. */
export function groupLister(token: string, slackApiUrl?: string): (groupId: string) => Promise<string[]> {
  const client = new WebClient(token, { ...(slackApiUrl ? { slackApiUrl } : {}), retryConfig: { retries: 1 }, timeout: 5_000 });
  return async (usergroup) => (await client.usergroups.users.list({ usergroup })).users ?? [];
}
