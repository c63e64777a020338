// A local Slack Web API: records every call the bot makes (chat.postMessage,
// chat.update, files.uploadV2's getUploadURLExternal → upload →
// completeUploadExternal, response_url posts) and answers like Slack does.
// conversations.history / conversations.replies serve what was posted, with
// each message's metadata when include_all_metadata is set (as Slack does), so
// a retried job's lookup of what it already posted runs against real answers.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  args: Record<string, unknown>;
  /** When the call arrived (Date.now()). */
  at: number;
  /** The HTTP status the stub answered with. */
  status: number;
}

export interface StubMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks: unknown[];
  /** Every text this message had, oldest first (chat.update history). */
  history: string[];
  /** chat.postMessage's `metadata` ({ event_type, event_payload }), as posted. */
  metadata?: unknown;
  /** A file-share message's files (conversations.history / replies only). */
  files?: { id: string; name?: string; title?: string }[];
}

const byTs = (a: { ts: string }, b: { ts: string }) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0);

function readBytes(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseArgs(body: string, contentType: string | undefined): Record<string, unknown> {
  if (!body) return {};
  if (contentType?.includes('application/json')) return JSON.parse(body) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    // WebClient form-encodes nested values as JSON text.
    if ((k === 'blocks' || k === 'files' || k === 'attachments') && v.startsWith('[')) args[k] = JSON.parse(v);
    else if (k === 'metadata' && v.startsWith('{')) args[k] = JSON.parse(v);
    else args[k] = v;
  }
  return args;
}

/** The file part of a multipart/form-data upload (how WebClient posts to the upload URL), else the body as sent. */
export function uploadedBytes(body: Buffer, contentType: string | undefined): Buffer {
  const boundary = /multipart\/form-data;.*boundary=("?)([^";]+)\1/i.exec(contentType ?? '')?.[2];
  if (!boundary) return body;
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next < 0) break;
    const part = body.subarray(at + delimiter.length, next);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd >= 0 && /filename=/i.test(part.subarray(0, headerEnd).toString('utf8'))) {
      // The part's content ends before the CRLF that precedes the next delimiter.
      return part.subarray(headerEnd + 4, part.length - 2);
    }
    at = next;
  }
  return body;
}

export interface StubUpload {
  fileId: string;
  content: string;
  bytes: Buffer;
  filename?: string;
  length?: number;
  channel?: string;
  thread_ts?: string;
  title?: string;
  initial_comment?: string;
  /** The file-share message Slack posts where the file was shared (conversations.history / replies show it). */
  ts?: string;
}

export class SlackStub {
  readonly calls: RecordedCall[] = [];
  readonly messages: StubMessage[] = [];
  /**
   * files.uploadV2's three steps joined per file: the bytes uploaded (also as text) and where
   * completeUploadExternal shared it. A file is listed once completed, as Slack shows it only then.
   */
  readonly uploads: StubUpload[] = [];
  /** Files given an upload URL and not completed yet. */
  private readonly pendingUploads = new Map<string, StubUpload>();
  readonly responses: { path: string; body: Record<string, unknown> }[] = [];
  /** Slack method → error code to answer with (e.g. "not_in_channel"). */
  readonly failures = new Map<string, string>();
  /** One-shot failures: the first call to `method` whose args `match` is answered with `error`, then the entry is gone. */
  readonly failOnce: { method: string; error: string; match: (args: Record<string, unknown>) => boolean }[] = [];
  userGroups = new Map<string, string[]>();
  /** Public channels the bot posts in (chat:write.public) without being a member: their history is refused until it joins. */
  readonly notMemberOf = new Set<string>();
  /** Workspaces team.info knows: team id → its Enterprise Grid organisation (null: none). Others: team_not_found. */
  readonly teams = new Map<string, string | null>();
  /** While set: every Web API call is answered 429 with this Retry-After, until `until` (Date.now()). */
  /** 429 for every Web API call until `until`; `until` null: for `forMs` from the next call on. */
  rateLimit: { until: number | null; forMs: number; retryAfterSeconds: number } | null = null;
  /** Slack method → how many more calls to answer with this HTTP status (e.g. 503). */
  readonly serverErrors = new Map<string, { remaining: number; status: number }>();
  private server: Server | undefined;
  private seq = 100;
  port = 0;

  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api/`;
  }

  responseUrl(id = 'r1'): string {
    return `http://127.0.0.1:${this.port}/response/${id}`;
  }

  /** `port`: a fixed loopback port (a test's own range); any free one by default. */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(
        ({ status, body, headers }) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(body));
        },
        (err: Error) => {
          res.writeHead(500);
          res.end(err.message);
        },
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  reset(): void {
    this.calls.length = 0;
    this.messages.length = 0;
    this.uploads.length = 0;
    this.pendingUploads.clear();
    this.responses.length = 0;
    this.failures.clear();
    this.failOnce.length = 0;
    this.serverErrors.clear();
    this.rateLimit = null;
    this.notMemberOf.clear();
  }

  /** Answers every Web API call with 429 and Retry-After for the next `forMs`, as Slack does under load. */
  rateLimitFor(forMs: number, retryAfterSeconds = 1): void {
    this.rateLimit = { until: Date.now() + forMs, forMs, retryAfterSeconds };
  }

  /** 429s for `forMs` from the next Web API call on, however late it comes (a loaded machine). */
  rateLimitFromNextCall(forMs: number, retryAfterSeconds = 1): void {
    this.rateLimit = { until: null, forMs, retryAfterSeconds };
  }

  /** Calls the stub accepted (rate-limited and failed attempts left out). */
  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method && c.status === 200);
  }

  /** Replies in a thread, oldest first. */
  thread(ts: string): StubMessage[] {
    return this.messages.filter((m) => m.thread_ts === ts);
  }

  topLevel(channel?: string): StubMessage[] {
    return this.messages.filter((m) => !m.thread_ts && (!channel || m.channel === channel));
  }

  /** One page of a conversations.* listing: `oldest` (exclusive), `limit`, a cursor that is the next index, metadata only on request. */
  /** Shared files as the messages Slack shows for them, in a channel (top level) or one thread. */
  private fileShares(channel: string, threadTs?: string): StubMessage[] {
    return this.uploads
      .filter((u) => u.ts && u.channel === channel && (threadTs ? u.thread_ts === threadTs : !u.thread_ts))
      .map((u) => ({ channel, ts: u.ts!, ...(u.thread_ts ? { thread_ts: u.thread_ts } : {}), text: u.initial_comment ?? '', blocks: [], history: [], files: [{ id: u.fileId, name: u.filename, title: u.title }] }));
  }

  private page(list: StubMessage[], args: Record<string, unknown>, keep?: string) {
    // Compared as integers of microseconds: a double cannot tell two ts a microsecond apart.
    const micros = (ts: string) => BigInt(ts.split('.')[0]!) * 1_000_000n + BigInt((ts.split('.')[1] ?? '').padEnd(6, '0').slice(0, 6));
    const oldest = args.oldest !== undefined ? micros(String(args.oldest)) : -1n;
    const all = list.filter((m) => m.ts === keep || micros(m.ts) > oldest);
    const from = Number(args.cursor ?? 0);
    const limit = Number(args.limit ?? 100);
    const withMetadata = args.include_all_metadata === true || args.include_all_metadata === 'true';
    const messages = all.slice(from, from + limit).map((m) => ({
      type: 'message',
      ts: m.ts,
      text: m.text,
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
      ...(withMetadata && m.metadata ? { metadata: m.metadata } : {}),
      ...(m.files ? { files: m.files } : {}),
    }));
    const more = from + limit < all.length;
    return { ok: true, messages, has_more: more, ...(more ? { response_metadata: { next_cursor: String(from + limit) } } : {}) };
  }

  /** Slack's form: the current second, then a per-stub sequence (unique, increasing; `oldest` filters on it as on Slack). */
  private nextTs(): string {
    return `${Math.floor(Date.now() / 1000)}.${String(++this.seq).padStart(6, '0')}`;
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> {
    const url = new URL(req.url ?? '/', 'http://stub');
    const bytes = await readBytes(req);
    const raw = bytes.toString('utf8');
    if (url.pathname.startsWith('/upload/')) {
      const fileId = url.pathname.slice('/upload/'.length);
      const pending = this.pendingUploads.get(fileId);
      const file = uploadedBytes(bytes, req.headers['content-type']);
      if (pending) Object.assign(pending, { content: file.toString('utf8'), bytes: file });
      return { status: 200, body: 'OK' };
    }
    if (url.pathname.startsWith('/response/')) {
      this.responses.push({ path: url.pathname, body: JSON.parse(raw || '{}') as Record<string, unknown> });
      return { status: 200, body: { ok: true } };
    }
    if (!url.pathname.startsWith('/api/')) return { status: 404, body: { ok: false, error: 'unknown_path' } };
    const method = url.pathname.slice('/api/'.length);
    const args = parseArgs(raw, req.headers['content-type']);
    const call: RecordedCall = { method, args, at: Date.now(), status: 200 };
    this.calls.push(call);
    if (this.rateLimit && this.rateLimit.until === null) this.rateLimit.until = Date.now() + this.rateLimit.forMs;
    if (this.rateLimit && Date.now() < this.rateLimit.until!) {
      call.status = 429;
      return { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': String(this.rateLimit.retryAfterSeconds) } };
    }
    const serverError = this.serverErrors.get(method);
    if (serverError && serverError.remaining > 0) {
      serverError.remaining--;
      call.status = serverError.status;
      return { status: serverError.status, body: { ok: false, error: 'service_unavailable' } };
    }
    const failure = this.failures.get(method);
    if (failure) return { status: 200, body: { ok: false, error: failure } };
    const once = this.failOnce.findIndex((f) => f.method === method && f.match(args));
    if (once >= 0) return { status: 200, body: { ok: false, error: this.failOnce.splice(once, 1)[0]!.error } };
    switch (method) {
      case 'chat.postMessage': {
        const ts = this.nextTs();
        const m: StubMessage = {
          channel: String(args.channel),
          ts,
          text: String(args.text ?? ''),
          blocks: (args.blocks as unknown[]) ?? [],
          history: [String(args.text ?? '')],
          ...(args.thread_ts ? { thread_ts: String(args.thread_ts) } : {}),
          ...(args.metadata ? { metadata: args.metadata } : {}),
        };
        this.messages.push(m);
        return { status: 200, body: { ok: true, channel: m.channel, ts, message: { text: m.text } } };
      }
      case 'chat.update': {
        const m = this.messages.find((x) => x.ts === args.ts && x.channel === args.channel);
        if (!m) return { status: 200, body: { ok: false, error: 'message_not_found' } };
        m.text = String(args.text ?? '');
        m.blocks = (args.blocks as unknown[]) ?? [];
        m.history.push(m.text);
        return { status: 200, body: { ok: true, channel: m.channel, ts: m.ts } };
      }
      case 'files.getUploadURLExternal': {
        const fileId = `F${++this.seq}`;
        this.pendingUploads.set(fileId, { fileId, content: '', bytes: Buffer.alloc(0), filename: String(args.filename), ...(args.length !== undefined ? { length: Number(args.length) } : {}) });
        return { status: 200, body: { ok: true, upload_url: `http://127.0.0.1:${this.port}/upload/${fileId}`, file_id: fileId } };
      }
      case 'files.completeUploadExternal': {
        const files = (args.files as { id: string; title?: string }[]) ?? [];
        for (const f of files) {
          const u = this.pendingUploads.get(f.id);
          if (!u) continue;
          this.pendingUploads.delete(f.id);
          this.uploads.push(Object.assign(u, { channel: args.channel_id, thread_ts: args.thread_ts, title: f.title, ts: this.nextTs(), ...(args.initial_comment ? { initial_comment: String(args.initial_comment) } : {}) }));
        }
        return { status: 200, body: { ok: true, files: files.map((f) => ({ id: f.id })) } };
      }
      case 'team.info': {
        const id = String(args.team ?? '');
        if (!this.teams.has(id)) return { status: 200, body: { ok: false, error: 'team_not_found' } };
        const enterprise = this.teams.get(id);
        return { status: 200, body: { ok: true, team: { id, name: id, ...(enterprise ? { enterprise_id: enterprise } : {}) } } };
      }
      case 'conversations.join':
        this.notMemberOf.delete(String(args.channel));
        return { status: 200, body: { ok: true, channel: { id: String(args.channel) } } };
      case 'conversations.history':
        if (this.notMemberOf.has(String(args.channel))) return { status: 200, body: { ok: false, error: 'not_in_channel' } };
        return { status: 200, body: this.page([...this.topLevel(String(args.channel)), ...this.fileShares(String(args.channel))].sort(byTs).reverse(), args) };
      case 'conversations.replies': {
        if (this.notMemberOf.has(String(args.channel))) return { status: 200, body: { ok: false, error: 'not_in_channel' } };
        const parent = this.messages.find((m) => m.channel === args.channel && m.ts === args.ts && !m.thread_ts);
        if (!parent) return { status: 200, body: { ok: false, error: 'thread_not_found' } };
        // The parent first, then its replies (files shared in it too) oldest first; `oldest` filters the replies.
        const replies = [...this.thread(parent.ts).filter((m) => m.channel === parent.channel), ...this.fileShares(parent.channel, parent.ts)].sort(byTs);
        return { status: 200, body: this.page([parent, ...replies], args, parent.ts) };
      }
      case 'usergroups.users.list':
        return { status: 200, body: { ok: true, users: this.userGroups.get(String(args.usergroup)) ?? [] } };
      default:
        return { status: 200, body: { ok: true } };
    }
  }
}
