// `kafka-responder serve`: the same Lambda handlers behind a local HTTP
// server, the worker in-process. Requests are adapted into API Gateway HTTP
// API (payload v2) events and SNS Lambda events, so what runs here is what
// runs in AWS; only the queue (in-process) and, by default, the state store
// (in memory, one process) differ.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_ALERT_BODY_BYTES } from '../alerts/intake.ts';
import { routeAuth, type AlertSourceDef } from '../alerts/sources/types.ts';
import type { ApprovalService } from '../approvals/service.ts';
import type { Config } from '../config/schema.ts';
import type { Diagnoser } from '../diagnose/diagnoser.ts';
import type { OperationsBackend } from '../operations/backend.ts';
import { OPS_JOB_KINDS } from '../operations/requests.ts';
import { PAGERDUTY_JOB_KINDS } from '../pagerduty/deliveries.ts';
import type { Plan } from '../operations/types.ts';
import { newJob } from '../queue/job.ts';
import { InProcessJobQueue } from '../queue/queue.ts';
import { approvalsConfigured } from '../approvals/runtime.ts';
import { buildSlackHandler } from '../root/slack.ts';
import { buildWorker, defaultFeatureDeps } from '../root/worker.ts';
import type { HttpResult } from '../runtime/lambda-types.ts';
import { json } from '../runtime/lambda-types.ts';
import type { Log } from '../runtime/log.ts';
import { BackgroundWork } from '../runtime/after-answer.ts';
import { ResponderError, errorMessage } from '../runtime/errors.ts';
import { groupLister, webApiPoster, type DeliveryOptions, type SlackPoster } from '../slack/web.ts';
import { KeyRoutedStateStore } from '../state/key-routed-store.ts';
import { MemoryStateStore, type StateStore } from '../state/state-store.ts';
import { REPLAY_KEY_PREFIX } from '../slack/receiver.ts';
import { BUDGET_KEY_PREFIX } from '../slack/command-budget.ts';
import { startLocalApprovals } from './approvals.ts';
import { RequestsInFlight } from './in-flight.ts';
import { alertRoutes, toHttpEvent, type AlertRoute } from './http-events.ts';
import { DEPLOYED_WORKER_TIMEOUT_SECONDS } from './worker-timeout.ts';

export interface LocalServerOptions {
  config: Config;
  signingSecret: string;
  botToken: string;
  /** Bearer token for POST /alerts/alertmanager and POST /alerts/sns (in AWS, SNS itself invokes the function), and any alert route without its own secret. */
  alertmanagerToken: string;
  /** Other alert sources' secrets by SSM parameter name (GRAFANA_TOKEN as "grafana-token"). */
  alertSecrets?: Record<string, string>;
  /** The alert sources served (ALERT_SOURCES; a test adds its own). */
  alertSources?: readonly AlertSourceDef[];
  log: Log;
  /** Slack Web API base URL (SLACK_API_URL); Slack itself when unset. */
  slackApiUrl?: string;
  host?: string;
  port?: number;
  store?: StateStore;
  diagnoser?: Diagnoser;
  slack?: SlackPoster;
  /** Pace and retries of the default poster (tests shorten Slack's one message a second per channel). */
  slackDelivery?: Omit<DeliveryOptions, 'store' | 'log'>;
  /** Two-person approvals; by default lib/local/approvals.ts (in-process dynalite or KR_APPROVALS_DYNAMODB_ENDPOINT). */
  approvals?: ApprovalService<Plan>;
  operations?: OperationsBackend;
  /**
   * The deployed worker's time limit per job, in seconds (serverless.yml's worker
   * `timeout` by default): a job still running then is treated as killed, as on Lambda.
   */
  workerTimeoutSeconds?: number;
  /** How often the operations sweep runs (EventBridge: every minute); 0 turns it off. */
  sweepIntervalMs?: number;
}

export interface LocalServer {
  url: string;
  queue: InProcessJobQueue;
  /** Where approvals and the bot state live (lib/local/approvals.ts), or why they could not be opened. */
  storeNote: string;
  /** Whether two-person operations can run, and if not why: `serve` prints it on its start-up line. */
  operations: { on: true; approvers: string } | { on: false; why: string };
  close(): Promise<void>;
}

/** How long work that can wait (in-process jobs, give-backs) waits for the requests in flight to be answered before it starts anyway. */
const DEFERRED_MAX_WAIT_MS = 2_000;

/** Slack's requests are small; alerts take what API Gateway's HTTP API takes (intake.ts). */
const MAX_BODY = 1024 * 1024;

class BodyTooLargeError extends ResponderError {
  readonly failure = 'fatal';
  override name = 'BodyTooLargeError';
}

function readBody(req: IncomingMessage, max = MAX_BODY): Promise<Buffer> {
  // Refused from its declared length before a byte is kept.
  const declared = Number(req.headers['content-length']);
  if (declared > max) {
    // Not read at all: the answer goes out with `connection: close` and the socket closes behind it.
    return Promise.reject(new BodyTooLargeError(`request body larger than ${max} bytes`));
  }
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        chunks = [];
        req.removeAllListeners('data');
        req.pause();
        reject(new BodyTooLargeError(`request body larger than ${max} bytes`));
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * A body we will not use is read and dropped (nothing kept), so the client
 * can read our answer; past `max` more bytes the connection is cut instead.
 */
function discardBody(req: IncomingMessage, max = MAX_ALERT_BODY_BYTES): void {
  let seen = 0;
  req.removeAllListeners('data');
  req.on('data', (c: Buffer) => {
    seen += c.length;
    if (seen > max) req.destroy();
  });
  req.resume();
}

/**
 * What can be refused from the headers alone, before the body is read: an
 * alert without its source's credentials, a Slack request without its
 * signature headers. Signatures need the body (their handlers check them).
 */
function refuseFromHeaders(req: IncomingMessage, path: string, alerts: Map<string, AlertRoute>): { status: number; error: string } | null {
  if (path.startsWith('/alerts/')) {
    const route = alerts.get(path);
    if (!route) return { status: 404, error: `no route for POST ${path}` };
    const get = (name: string) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v.join(',') : v;
    };
    const authError = routeAuth(route.source).checkHeaders(get, route.secret);
    return authError ? { status: 401, error: authError } : null;
  }
  if (path.startsWith('/slack/') && (!req.headers['x-slack-signature'] || !req.headers['x-slack-request-timestamp'])) {
    return { status: 401, error: 'missing Slack signature headers' };
  }
  return null;
}

/** "2 approvers", "user group S0123 as approvers": who may approve, for the start-up line. */
function approverText(config: Config): string {
  const { approvers, approverGroup, required } = config.approvals;
  const who = [approvers.length ? `${approvers.length} approvers` : '', approverGroup ? `user group ${approverGroup}` : ''].filter(Boolean).join(' and ');
  return `${who}, ${required} approvals per plan`;
}

/** serve's own approvals store (and bot state) unless the caller gave one; operations are off when it cannot be opened. */
async function openApprovals(opts: LocalServerOptions): Promise<{ local: Awaited<ReturnType<typeof startLocalApprovals>> | null; storeNote: string }> {
  const { log } = opts;
  let local: Awaited<ReturnType<typeof startLocalApprovals>> | null = null;
  let storeNote = 'approvals given by the caller';
  if (!opts.approvals) {
    try {
      local = await startLocalApprovals(opts.config, process.env, undefined, groupLister(opts.botToken, opts.slackApiUrl));
      storeNote = local.note;
    } catch (err) {
      // An unreachable KR_APPROVALS_DYNAMODB_ENDPOINT turns operations off, not the whole server.
      storeNote = `the approvals store could not be opened (${errorMessage(err)}): bot state in process memory`;
      log.warn('operations are off: the approvals store could not be opened', { error: errorMessage(err) });
    }
  }
  return { local, storeNote };
}

/**
 * The bot state on serve's own store. An in-process dynalite is this process's
 * memory: the ack path's short-lived marks (replay checks, command windows)
 * are kept in a MemoryStateStore beside it, with the same lifetime and the same
 * first-writer-wins answers, so that a burst of commands is not a queue of
 * HTTP round trips to it (bench/slack-ack.ts --serve). A store that outlives
 * serve (KR_APPROVALS_DYNAMODB_ENDPOINT) keeps them itself.
 */
function ackPathStore(local: Awaited<ReturnType<typeof startLocalApprovals>> | null): StateStore | undefined {
  if (!local?.state || !local.inProcess) return local?.state;
  return new KeyRoutedStateStore(local.state, new MemoryStateStore(), [REPLAY_KEY_PREFIX, BUDGET_KEY_PREFIX]);
}

/** The routes serve answers: health, Slack's three, and one per alert source (authenticated before a byte of the body is read). */
function router(slack: ReturnType<typeof buildSlackHandler>, alerts: Map<string, AlertRoute>, log: Log) {
  return async (req: IncomingMessage): Promise<HttpResult> => {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    if (req.method === 'GET' && path === '/healthz') return json(200, { ok: true });
    if (req.method !== 'POST') return json(405, { error: 'use POST' });
    // Checked before the body is read: an unauthenticated client costs no memory, whatever it sends.
    const refused = refuseFromHeaders(req, path, alerts);
    if (refused) {
      if (refused.status === 401) log.warn('rejected request: unauthenticated', { reason: refused.error, route: path, sourceIp: req.socket.remoteAddress });
      discardBody(req);
      return json(refused.status, { error: refused.error });
    }
    const alert = alerts.get(path);
    const body = await readBody(req, alert ? MAX_ALERT_BODY_BYTES : MAX_BODY);
    if (alert) return alert.handle(req, body);
    switch (path) {
      case '/slack/events':
      case '/slack/interactivity':
      case '/slack/commands':
        return slack(toHttpEvent(req, body));
      default:
        return json(404, { error: `no route for POST ${path}` });
    }
  };
}

export async function startLocalServer(opts: LocalServerOptions): Promise<LocalServer> {
  const { log } = opts;
  const { local, storeNote } = await openApprovals(opts);
  const approvals = opts.approvals ?? local?.approvals;
  const operations: LocalServer['operations'] = !approvalsConfigured(opts.config)
    ? { on: false, why: 'no approvers configured (approvals.approvers / KR_APPROVERS)' }
    : approvals
      ? { on: true, approvers: approverText(opts.config) }
      : { on: false, why: `no approvals store: ${storeNote}` };
  const store = opts.store ?? ackPathStore(local) ?? new MemoryStateStore();
  const defaults = defaultFeatureDeps(approvals);
  const worker = buildWorker(
    opts.config,
    { store, slack: opts.slack ?? webApiPoster(opts.botToken, opts.slackApiUrl, { ...opts.slackDelivery, store, log }), log },
    { ...defaults, ...(opts.diagnoser ? { diagnoser: opts.diagnoser } : {}), ...(opts.operations ? { operations: opts.operations } : {}) },
  );
  const timeoutMs = (opts.workerTimeoutSeconds ?? DEPLOYED_WORKER_TIMEOUT_SECONDS) * 1000;
  // Jobs start once the requests in flight are answered (a burst's acks first), 2 s at most later.
  const inFlight = new RequestsInFlight();
  const queue: InProcessJobQueue = new InProcessJobQueue((job, limits) => worker.run(job, { ...limits, queue }), log, timeoutMs, () => inFlight.quiet(DEFERRED_MAX_WAIT_MS));
  const sweepMs = opts.sweepIntervalMs ?? 60_000;
  // One timer for what the deployed minute sweep runs: operations, and PagerDuty deliveries whose first enqueue was lost.
  const sweeps = [...(approvals ? [{ kind: OPS_JOB_KINDS.sweep, id: 'sweep' }] : []), ...(opts.config.pagerduty ? [{ kind: PAGERDUTY_JOB_KINDS.sweep, id: 'sweep-pd' }] : [])];
  const sweepTimer = sweeps.length && sweepMs > 0 ? setInterval(() => sweeps.forEach((s) => void queue.enqueue(newJob(s.kind, {}, `${s.id}-${Date.now()}`))), sweepMs) : undefined;
  sweepTimer?.unref();
  // serve outlives its answers: what an answer need not wait for is done after it, once the requests in flight are answered.
  const background = new BackgroundWork(log, () => inFlight.quiet(DEFERRED_MAX_WAIT_MS));
  const slack = buildSlackHandler({
    config: opts.config,
    queue,
    store,
    log,
    afterAnswer: background.after,
    signingSecret: opts.signingSecret,
    botToken: opts.botToken,
    ...(opts.slackApiUrl ? { slackApiUrl: opts.slackApiUrl } : {}),
    ...(approvals ? { approvals } : {}),
  });
  const alerts = alertRoutes({ queue, store, log }, { alertmanagerToken: opts.alertmanagerToken, ...(opts.alertSecrets ? { alertSecrets: opts.alertSecrets } : {}) }, opts.alertSources);
  const route = router(slack, alerts, log);

  const server: Server = createServer((req, res) => {
    inFlight.track(req, res);
    route(req).then(
      (r) => {
        res.writeHead(r.statusCode, Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k, String(v)])));
        res.end(r.body);
      },
      (err) => {
        // A client sending too much is the client's mistake, not ours: a warning, not an error to page on.
        if (err instanceof BodyTooLargeError) log.warn('refused a request body over the limit', { error: errorMessage(err), url: req.url });
        else log.error('local server request failed', { error: errorMessage(err), url: req.url });
        // A body too large is not read further: the connection closes after the answer.
        res.writeHead(err instanceof BodyTooLargeError ? 413 : 400, { 'content-type': 'application/json', ...(err instanceof BodyTooLargeError ? { connection: 'close' } : {}) });
        res.end(JSON.stringify({ error: errorMessage(err) }));
      },
    );
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 3000, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    queue,
    storeNote,
    operations,
    close: async () => {
      clearInterval(sweepTimer);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      queue.close();
      await Promise.all([queue.idle(), background.idle()]);
      await local?.close();
    },
  };
}
