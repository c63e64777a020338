// The requests bench/soak-serve.ts sends to `serve`, what each must get back,
// and the dynalite whose items it counts. Kept apart from the soak's loop so
// that the loop reads as a schedule and this file as the list of request kinds. Slack requests are signed the
// way the tests sign them (test/slack/helpers/signed.ts, lib/slack/verify.ts);
// alert payloads are the tests' fixtures (test/alerts/fixtures).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { DynamoDBClient, ListTablesCommand, ScanCommand, type ScanCommandInput } from '@aws-sdk/client-dynamodb';
import { signSlackRequest } from '../lib/slack/verify.ts';
import { bigNotification } from '../test/alerts/fixtures/big.ts';
import { alertmanagerPayload, cloudwatchAlarm, snsEvent } from '../test/alerts/fixtures/samples.ts';
import { SIGNING_SECRET, blockActionsPayload, slashBody } from '../test/slack/helpers/signed.ts';

export { SIGNING_SECRET };
/** At least 16 characters: createAlertmanagerHandler refuses shorter tokens. */
export const ALERT_TOKEN = 'soak-alertmanager-token-0123456789';
/** serve's limit on its alert routes (lib/alerts/intake.ts MAX_ALERT_BODY_BYTES, API Gateway's). */
export const ALERT_LIMIT = 10 * 1024 * 1024;

/**
 * valid: authenticated and well-formed, must be answered 2xx (anything else is a failure);
 * forged / unauthenticated: must be refused 401 (a 2xx is a security failure);
 * oversize: authenticated but over the 10 MB limit, must be refused 413.
 */
export type Category = 'valid' | 'forged' | 'unauthenticated' | 'oversize';

export interface SoakRequest {
  type: string;
  category: Category;
  path: string;
  headers: Record<string, string>;
  body: string;
  expect: number[];
  timeoutMs: number;
}

export interface Outcome {
  type: string;
  category: Category;
  /** The HTTP status, or "timeout" / "error:<code>" when no answer came. */
  status: number | string;
  ms: number;
  expected: boolean;
  at: number;
  /** What was sent (first 160 characters) and answered (first 300), to report a failure precisely. */
  sent: string;
  answer: string;
}

/** Slack acks within 3 s; 10 s without an answer is a failure whatever the cause. */
const SLACK_TIMEOUT_MS = 10_000;
const ALERT_TIMEOUT_MS = 30_000;
/** Reading and parsing 10 MB on a loaded machine: generous, but still bounded. */
const HEAVY_TIMEOUT_MS = 120_000;

export function slackHeaders(body: string, opts: { secret?: string; timestamp?: number } = {}): Record<string, string> {
  const ts = opts.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': signSlackRequest(opts.secret ?? SIGNING_SECRET, ts, body),
  };
}

export function slash(type: string, text: string, user: string, channel: string, responseUrl: string): SoakRequest {
  const body = slashBody({ text, user, channel, responseUrl });
  return { type, category: 'valid', path: '/slack/events', headers: slackHeaders(body), body, expect: [200], timeoutMs: SLACK_TIMEOUT_MS };
}

export interface PlanMessage {
  channel: string;
  ts: string;
  text: string;
  thread_ts?: string;
}

export function click(type: string, actionId: string, value: string, user: string, message: PlanMessage, responseUrl: string, seq: number): SoakRequest {
  const payload = blockActionsPayload({ actionId, value, user, message, responseUrl, actionTs: `${Math.floor(Date.now() / 1000)}.${String(seq).padStart(6, '0')}` });
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return { type, category: 'valid', path: '/slack/interactivity', headers: slackHeaders(body), body, expect: [200], timeoutMs: SLACK_TIMEOUT_MS };
}

/** Requests that must never get through: a wrong secret, a timestamp outside Slack's 5 minutes, no signature at all. */
export function forged(kind: 'bad-signature' | 'stale-timestamp' | 'no-signature', responseUrl: string): SoakRequest {
  const body = slashBody({ text: 'drain 3', user: 'U0MALLORY', channel: 'C0SOAK1', responseUrl });
  const headers =
    kind === 'bad-signature'
      ? slackHeaders(body, { secret: 'not-the-signing-secret-0123456789' })
      : kind === 'stale-timestamp'
        ? slackHeaders(body, { timestamp: Math.floor(Date.now() / 1000) - 600 })
        : { 'content-type': 'application/x-www-form-urlencoded' };
  return { type: `forged:${kind}`, category: 'forged', path: '/slack/events', headers, body, expect: [401], timeoutMs: SLACK_TIMEOUT_MS };
}

/** The exact bytes and headers of a request already delivered: serve's replay check must refuse it. */
export function replayOf(original: SoakRequest): SoakRequest {
  return { ...original, type: 'forged:replay', category: 'forged', expect: [401] };
}

function alertPost(type: string, path: string, body: string, auth: string | undefined, category: Category, expect: number[], heavy = false): SoakRequest {
  return {
    type,
    category,
    path,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
    body,
    expect,
    timeoutMs: heavy ? HEAVY_TIMEOUT_MS : ALERT_TIMEOUT_MS,
  };
}

const BEARER = `Bearer ${ALERT_TOKEN}`;
const WRONG = 'Bearer wrong-token-wrong-token-wrong';

/**
 * Alert groups come from a bounded set of group keys: a soak must tell growth
 * per request (a leak) from growth per new group (by design, TTL-bounded), so
 * new groups stop appearing after the first minutes.
 */
const GROUPS = 6;

export function alertmanager(kind: 'tiny' | 'typical' | 'hundreds', n: number): SoakRequest {
  let payload: unknown;
  if (kind === 'tiny') {
    // The fixture names the sandbox cluster: the realistic case, it triggers a (shared) diagnosis.
    payload = alertmanagerPayload(n % 2 === 0 ? 'firing' : 'resolved');
  } else {
    const alerts = kind === 'typical' ? 5 + (n % 20) : 100 + ((n * 97) % 700);
    payload = bigNotification(alerts, { group: `soak-${kind}-${n % GROUPS}`, resolved: n % 3 });
  }
  return alertPost(`alertmanager:${kind}`, '/alerts/alertmanager', JSON.stringify(payload), BEARER, 'valid', [202]);
}

export function sns(kind: 'alarm' | 'event', n: number): SoakRequest {
  const metric = ['OfflinePartitionsCount', 'UnderReplicatedPartitions', 'KafkaDataLogsDiskUsed'][n % 3]!;
  const alarm = cloudwatchAlarm(n % 2 === 0 ? 'ALARM' : 'OK', metric);
  // A bare alarm (serve wraps it as SNS would) and a whole SNS Lambda event: both forms serve takes.
  const body = kind === 'alarm' ? JSON.stringify(alarm) : JSON.stringify(snsEvent([alarm]));
  return alertPost(`sns:${kind}`, '/alerts/sns', body, BEARER, 'valid', [202]);
}

export function unauthenticatedSmall(kind: 'am-no-token' | 'am-wrong-token' | 'sns-no-token' | 'sns-wrong-token'): SoakRequest {
  const am = kind.startsWith('am-');
  const body = am ? JSON.stringify(alertmanagerPayload('firing')) : JSON.stringify(cloudwatchAlarm('ALARM'));
  return alertPost(`unauth:${kind}`, am ? '/alerts/alertmanager' : '/alerts/sns', body, kind.endsWith('wrong-token') ? WRONG : undefined, 'unauthenticated', [401]);
}

/** A notification of `target` bytes or just under, built from the big fixture (about 120 bytes an alert). */
function notificationOfBytes(target: number, group: string): string {
  const overhead = JSON.stringify(bigNotification(0, { group })).length;
  const per = (JSON.stringify(bigNotification(2_000, { group })).length - overhead) / 2_000;
  let n = Math.floor((target - overhead) / per);
  let text = JSON.stringify(bigNotification(n, { group }));
  // Later alerts have longer partition numbers: step down until it fits (a few rounds at most).
  for (let i = 0; i < 20 && text.length > target; i++) {
    n -= Math.ceil((text.length - target) / per) + 10;
    text = JSON.stringify(bigNotification(n, { group }));
  }
  return text;
}

/** The 10 MB bodies, built once: the soak's own memory stays flat and its sends cheap. */
export class HeavyBodies {
  private near: string | undefined;
  private over: string | undefined;

  /** 64 KiB under the limit: what Alertmanager sends for a group of tens of thousands of alerts. */
  nearLimit(): string {
    return (this.near ??= notificationOfBytes(ALERT_LIMIT - 64 * 1024, 'soak-near-limit'));
  }

  /** 256 KiB over the limit: no platform piece would deliver it, serve must refuse it (413). */
  overLimit(): string {
    if (this.over) return this.over;
    const near = this.nearLimit();
    // Pad the near-limit body inside its JSON (a long annotation) rather than rebuilding 80,000 alerts.
    const pad = ALERT_LIMIT + 256 * 1024 - near.length;
    this.over = `${near.slice(0, -1)},"soakPadding":"${'p'.repeat(Math.max(pad, 1))}"}`;
    return this.over;
  }

  request(kind: 'near-limit' | 'over-limit' | 'am-wrong-token-10MB' | 'sns-no-token-10MB'): SoakRequest {
    switch (kind) {
      case 'near-limit':
        return alertPost('alertmanager:near-limit', '/alerts/alertmanager', this.nearLimit(), BEARER, 'valid', [202], true);
      case 'over-limit':
        return alertPost('oversize:over-limit', '/alerts/alertmanager', this.overLimit(), BEARER, 'oversize', [413], true);
      case 'am-wrong-token-10MB':
        return alertPost('unauth:am-wrong-token-10MB', '/alerts/alertmanager', this.nearLimit(), WRONG, 'unauthenticated', [401], true);
      case 'sns-no-token-10MB':
        return alertPost('unauth:sns-no-token-10MB', '/alerts/sns', this.nearLimit(), undefined, 'unauthenticated', [401], true);
    }
  }
}

/** Sends one request to serve on loopback; never throws: a timeout or a socket error is an outcome. */
export async function send(baseUrl: string, req: SoakRequest): Promise<Outcome> {
  const started = Date.now();
  const sent = `${req.path} ${req.body.slice(0, 160)}`;
  const out = (status: number | string, answer: string): Outcome => ({
    type: req.type,
    category: req.category,
    status,
    ms: Date.now() - started,
    expected: typeof status === 'number' && req.expect.includes(status),
    at: started,
    sent,
    answer: answer.slice(0, 300),
  });
  try {
    const res = await fetch(`${baseUrl}${req.path}`, { method: 'POST', headers: req.headers, body: req.body, signal: AbortSignal.timeout(req.timeoutMs) });
    return out(res.status, await res.text());
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return out('timeout', `no answer within ${req.timeoutMs} ms`);
    return out(`error:${e.cause?.code ?? e.name}`, e.message);
  }
}

export const APPROVERS = ['U0SOAKALICE', 'U0SOAKBOB'] as const;
export const REQUESTERS = ['U0SOAKREQ1', 'U0SOAKREQ2', 'U0SOAKREQ3'];
export const CHANNELS = ['C0SOAK1', 'C0SOAK2', 'C0SOAK3', 'C0SOAK4'];
const pick = <X>(xs: readonly X[]): X => xs[Math.floor(Math.random() * xs.length)]!;

/**
 * Everyday traffic, by weight: mostly Slack commands, then refused requests, then alerts, few enough that serve's
 * Slack pace (about one post a second per channel) keeps up; commands come from several channels, as people type them.
 */
export function everyday(responseUrl: (id: string) => string, ordersTopic: string, next: () => number): [number, () => SoakRequest][] {
  const s = (type: string, text: () => string) => () => slash(`slash:${type}`, text(), pick(['U0SOAK1', 'U0SOAK2', 'U0SOAK3', ...APPROVERS]), pick(CHANNELS), responseUrl(`s${next()}`));
  return [
    [10, s('help', () => 'help')],
    [8, s('status', () => 'status')],
    [4, s('diagnose', () => 'diagnose')],
    [4, s('diagnose-topic', () => `diagnose sandbox ${ordersTopic}`)],
    [3, s('diagnose-missing-topic', () => 'diagnose sandbox soak-no-such-topic')],
    [5, s('can-restart', () => `can-restart ${pick([1, 2, 3])}`)],
    [3, s('audit', () => 'audit')],
    [4, s('runbook', () => 'runbook offline-partition')],
    [3, () => alertmanager('tiny', next())],
    [3, () => alertmanager('typical', next())],
    [1, () => alertmanager('hundreds', next())],
    [2, () => sns('alarm', next())],
    [1, () => sns('event', next())],
    [6, () => forged('bad-signature', responseUrl('forged'))],
    [4, () => forged('stale-timestamp', responseUrl('forged'))],
    [2, () => forged('no-signature', responseUrl('forged'))],
    [4, () => unauthenticatedSmall('am-no-token')],
    [4, () => unauthenticatedSmall('am-wrong-token')],
    [3, () => unauthenticatedSmall('sns-no-token')],
    [2, () => unauthenticatedSmall('sns-wrong-token')],
  ];
}

interface PlanPost extends PlanMessage {
  blocks: unknown[];
}

/**
 * What the soak does with each plan posted in answer to its requests: most are rejected (an approver) or
 * cancelled (their requester), some get one approval first (the approve path, nothing runs), some get a late
 * click after they closed; `runs` plans of the run topic get both approvals and really run.
 */
export class PlanClicker {
  /** Plan message ts → its request id. */
  readonly plans = new Map<string, string>();
  readonly runPlans: string[] = [];
  /** response_url id of each click → its type, to tally what the bot told the clicker. */
  readonly clickIds = new Map<string, string>();
  private readonly queue: { type: string; action: string; user: string; plan: PlanPost; id: string }[] = [];

  constructor(private runs: number) {}

  pending(): number {
    return this.queue.length;
  }

  find(messages: PlanPost[], runTopic: string): void {
    for (const m of messages) {
      if (this.plans.has(m.ts) || !m.text.startsWith('REQUESTED: ')) continue;
      const blocks = JSON.stringify(m.blocks);
      const id = /"action_id":"ops:approve"[^}]*?"value":"([^"]+)"|"value":"([^"]+)"[^}]*?"action_id":"ops:approve"/.exec(blocks);
      const reqId = id?.[1] ?? id?.[2];
      if (!reqId) continue;
      this.plans.set(m.ts, reqId);
      const requester = /requested by <@(U[A-Z0-9]+)>/.exec(blocks)?.[1] ?? REQUESTERS[0]!;
      const q = (type: string, action: string, user: string) => this.queue.push({ type, action, user, plan: m, id: reqId });
      if (this.runs > 0 && m.text.includes(runTopic)) {
        this.runs--;
        this.runPlans.push(m.ts);
        q('click:approve', 'ops:approve', APPROVERS[0]);
        q('click:approve', 'ops:approve', APPROVERS[1]);
        continue;
      }
      const r = Math.random();
      if (r < 0.15) q('click:approve', 'ops:approve', APPROVERS[0]);
      if (r < 0.55) q('click:reject', 'ops:reject', pick(APPROVERS));
      else q('click:cancel', 'ops:cancel', requester);
      if (Math.random() < 0.2) q('click:late', 'ops:approve', APPROVERS[1]);
    }
  }

  /** The next click, as a signed request whose ephemeral answer goes to `responseUrl`. */
  take(responseUrl: string, seq: number): SoakRequest | undefined {
    const c = this.queue.shift();
    if (!c) return undefined;
    this.clickIds.set(responseUrl.slice(responseUrl.lastIndexOf('/') + 1), c.type);
    return click(c.type, c.action, c.id, c.user, c.plan, responseUrl, seq);
  }
}

// ---- the store the soak counts ----------------------------------------------------------
/** dynalite in a child process, as a real DynamoDB is: not on the soak's event loop, not in serve's memory. */
export async function startDynalite(): Promise<{ endpoint: string; child: ChildProcess }> {
  const script = `const s = require(${JSON.stringify(createRequire(import.meta.url).resolve('dynalite'))})({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
s.keepAliveTimeout = 600000; s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (code) => reject(new Error(`dynalite exited (${code})`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, child };
}

export interface TableCount {
  total: number;
  /** Items whose TTL has not passed: dynalite never expires items, DynamoDB does. */
  live: number;
}

/** The TTL attribute of each table, as serverless.yml declares it (the approvals table's `expiresAt` is the plan's, in ms). */
const ttlAttr = (table: string) => (table.includes('approvals') ? 'ttl' : 'expiresAt');

async function countItems(db: DynamoDBClient, input: ScanCommandInput): Promise<number> {
  let n = 0;
  let key: ScanCommandInput['ExclusiveStartKey'];
  for (let page = 0; page < 100_000; page++) {
    const r = await db.send(new ScanCommand({ ...input, Select: 'COUNT', ExclusiveStartKey: key }));
    n += r.Count ?? 0;
    key = r.LastEvaluatedKey;
    if (!key) return n;
  }
  throw new Error(`${input.TableName}: more than 100,000 pages`);
}

/** Every table's items (Scan, Select COUNT, page by page), all and live. */
export async function countTables(db: DynamoDBClient): Promise<Record<string, TableCount>> {
  const tables: Record<string, TableCount> = {};
  const now = String(Math.floor(Date.now() / 1000));
  for (const t of (await db.send(new ListTablesCommand({}))).TableNames ?? []) {
    const total = await countItems(db, { TableName: t });
    const live = await countItems(db, {
      TableName: t,
      FilterExpression: 'attribute_not_exists(#ttl) OR #ttl > :now',
      ExpressionAttributeNames: { '#ttl': ttlAttr(t) },
      ExpressionAttributeValues: { ':now': { N: now } },
    });
    tables[t] = { total, live };
  }
  return tables;
}
