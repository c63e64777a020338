// One diagnosis per cluster at a time, across every worker: the first request
// takes a short lease in the state store (a conditional write) and runs the
// diagnosis; requests for the same cluster that arrive while it runs, or
// within the cluster's `load.shareDiagnosisSeconds` after it finished, wait for
// and return its stored result instead of probing the sick cluster again.
// Each requester still renders the result in its own thread. The key is the
// cluster (and the brokers an alert names), never the topic: requests for
// different topics share the cluster-wide diagnosis and each keeps what
// concerns its topic, once that topic is known to exist (topic-check.ts), so
// a hundred made-up topic names cost one metadata request each and no snapshot.
// A restart check of one broker is shared the same way. Whatever leads reads
// the cluster inside one of its `load.maxSnapshotsInFlight` places (cluster-slots.ts).
//
// The leader renews its lease while it works. A leader that dies (its Lambda
// killed) stops renewing: the lease runs out and a waiting requester takes
// over. A waiter never waits past its own deadline (the Lambda's time left).
import { createHash, randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Log } from '../runtime/log.ts';
import { ResponderError, errorMessage } from '../runtime/errors.ts';
import { jitteredBackoffMs, type StateStore } from '../state/state-store.ts';
import type { DiagnoseRequest, Diagnoser } from './diagnoser.ts';
import type { DiagnosisReport } from './types.ts';
import type { ClusterConfig } from '../config/schema.ts';
import { withClusterSlot } from './cluster-slots.ts';
import { reportForTopic } from './topic-scope.ts';
import { UnknownTopicError } from './topic-scope.ts';

interface Flight {
  state: 'running' | 'done' | 'failed' | 'unshared';
  /** The leading request's correlation id, and a per-attempt id (a retried job leads again at once). */
  leader: string;
  attempt: string;
  /** Epoch ms. */
  leaseUntil: number;
  startedAt: number;
  finishedAt?: number;
  /** gzip + base64 JSON of the result (a report, a restart assessment): a large cluster's stays well under DynamoDB's 400 KB item. */
  report?: string;
  error?: string;
}

export interface SingleFlightOptions {
  store: StateStore;
  log?: Log;
  /** How long a lease lasts without renewal; renewed every third of it. */
  leaseMs?: number;
  /** How often a waiting request looks for the result. */
  pollMs?: number;
  now?: () => number;
}

/** Why a waiting request gave up; the leader's thread still gets the result. */
export class SharedDiagnosisTimeout extends ResponderError {
  readonly failure = 'transient';
  override name = 'SharedDiagnosisTimeout';
}

/** The flight's key: cluster and the brokers an alert names; a topic is filtered from the cluster-wide result, never a flight of its own. */
export function flightKey(request: Pick<DiagnoseRequest, 'cluster' | 'brokers'>): string {
  const scope = JSON.stringify({ brokers: [...(request.brokers ?? [])].sort((a, b) => a - b) });
  return `diagnosis-flight:${request.cluster.name}:${createHash('sha256').update(scope).digest('hex').slice(0, 24)}`;
}

export const restartFlightKey = (cluster: string, brokerId: number): string => `restart-flight:${cluster}:${brokerId}`;

const MAX_ITEM_BYTES = 350_000;
/** A read's place among the cluster's reads is held this much past its own budget at most (a killed worker's frees then). */
const SLOT_MARGIN_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface FlightCall<T> {
  key: string;
  correlationId: string;
  cluster: ClusterConfig;
  windowMs: number;
  /** Epoch ms: a waiter gives up here. */
  deadline: number;
  run: () => Promise<T>;
  onWait?: () => void;
}

/** What the flights of one diagnoser share: the store, the clock, the lease, and the cluster's read slots. */
interface FlightContext {
  store: StateStore;
  log: Log | undefined;
  leaseMs: number;
  pollMs: number;
  now: () => number;
  /** Runs `read` in one of the cluster's places (waiting for one up to `deadline`). */
  bounded: <T>(cluster: ClusterConfig, deadline: number, read: () => Promise<T>) => Promise<T>;
}

/** This request leads the flight: it runs the read, renewing its lease, and writes the result (or the failure) for the others. */
async function leadFlight<T>(ctx: FlightContext, call: FlightCall<T>, flight: Flight, version: number, ttlSeconds: number): Promise<T> {
  const { store, log, now, leaseMs } = ctx;
  const { key } = call;
  // Every write of this flight goes through one chain, so a renewal never races the final write.
  let chain: Promise<void> = Promise.resolve();
  let lost = false;
  const write = (next: (f: Flight) => Flight) => {
    chain = chain.then(async () => {
      if (lost) return;
      const updated = next(flight);
      if (await store.replace(key, version, updated, ttlSeconds)) {
        version++;
        flight = updated;
      } else {
        lost = true;
        log?.warn('diagnosis lease lost (another worker took over); result not shared', { key });
      }
    }).catch((err) => log?.warn('could not update the shared diagnosis', { key, error: errorMessage(err) }));
    return chain;
  };
  const renew = setInterval(() => void write((f) => ({ ...f, leaseUntil: now() + leaseMs })), Math.max(50, Math.floor(leaseMs / 3)));
  try {
    const result = await ctx.bounded(call.cluster, call.deadline, call.run);
    clearInterval(renew);
    const packed = gzipSync(JSON.stringify(result)).toString('base64');
    await write((f) => ({
      ...f,
      ...(packed.length <= MAX_ITEM_BYTES ? { state: 'done' as const, report: packed } : { state: 'unshared' as const }),
      finishedAt: now(),
      leaseUntil: now(),
    }));
    return result;
  } catch (err) {
    clearInterval(renew);
    await write((f) => ({ ...f, state: 'failed', error: errorMessage(err), finishedAt: now(), leaseUntil: now() }));
    throw err;
  } finally {
    clearInterval(renew);
  }
}

/** Share the flight under `call.key`: take a fresh result, wait for a live leader, or lead. */
async function shareFlight<T>(ctx: FlightContext, call: FlightCall<T>): Promise<T> {
  const { store, log, now, leaseMs, pollMs } = ctx;
  const { key, windowMs, deadline } = call;
  const ttlSeconds = Math.ceil((windowMs + leaseMs) / 1000) + 600;
  let announced = false;
  for (let round = 0; ; round++) {
    const current = await store.get<Flight>(key);
    const f = current?.value;
    const t = now();
    if (f && f.state === 'done' && f.report && t - (f.finishedAt ?? 0) <= windowMs) {
      log?.info('diagnosis shared', { key, leader: f.leader, ageMs: t - (f.finishedAt ?? 0) });
      return JSON.parse(gunzipSync(Buffer.from(f.report, 'base64')).toString('utf8')) as T;
    }
    if (f && f.state === 'failed' && t - (f.finishedAt ?? 0) <= windowMs) {
      throw new Error(f.error ?? 'the diagnosis failed');
    }
    // Running elsewhere, alive: wait (a retry of the same request takes its own dead attempt over).
    if (f && f.state === 'running' && f.leaseUntil > t && f.leader !== call.correlationId) {
      if (t >= deadline) {
        throw new SharedDiagnosisTimeout(`the diagnosis of ${call.cluster.name} already running did not finish in time here; its result is posted where it was requested`);
      }
      if (!announced) {
        announced = true;
        log?.info('joining the diagnosis already running', { key, leader: f.leader });
        call.onWait?.();
      }
      await sleep(Math.min(pollMs, Math.max(1, deadline - t)));
      continue;
    }
    // Nothing usable: lead. The conditional write decides between racing requesters.
    const mine: Flight = { state: 'running', leader: call.correlationId, attempt: randomUUID(), leaseUntil: t + leaseMs, startedAt: t };
    const won = current ? await store.replace(key, current.version, mine, ttlSeconds) : await store.create(key, mine, ttlSeconds);
    if (won) {
      if (f?.state === 'running') log?.warn('took over a diagnosis whose leader stopped renewing its lease', { key, previous: f.leader });
      return leadFlight(ctx, call, mine, current ? current.version + 1 : 1, ttlSeconds);
    }
    await sleep(1 + jitteredBackoffMs(Math.min(round, 5), 10, 200));
  }
}

export function singleFlightDiagnoser(inner: Diagnoser, options: SingleFlightOptions): Diagnoser {
  const { store, log } = options;
  const leaseMs = options.leaseMs ?? 20_000;
  const pollMs = options.pollMs ?? 500;
  const now = options.now ?? Date.now;

  /** Runs `read` in one of the cluster's places (waiting for one up to `deadline`). */
  const bounded = <T>(cluster: ClusterConfig, deadline: number, read: () => Promise<T>) =>
    withClusterSlot(cluster, { store, ...(log ? { log } : {}), deadline, leaseMs: cluster.diagnosisTimeoutMs + SLOT_MARGIN_MS, pollMs, now }, read);
  const flights: FlightContext = { store, log, leaseMs, pollMs, now, bounded };

  const checkTopic = inner.checkTopic?.bind(inner);
  return {
    ...(checkTopic ? { checkTopic } : {}),
    async canRestart(request) {
      const { cluster } = request;
      const deadline = now() + cluster.diagnosisTimeoutMs + leaseMs;
      const run = () => inner.canRestart(request);
      const windowMs = cluster.load.shareDiagnosisSeconds * 1000;
      if (windowMs <= 0) return bounded(cluster, deadline, run);
      return shareFlight(flights, { key: restartFlightKey(cluster.name, request.brokerId), correlationId: request.correlationId, cluster, windowMs, deadline, run });
    },
    async diagnose(request) {
      const { cluster, topic } = request;
      const deadline = now() + (request.deadlineMs ?? cluster.diagnosisTimeoutMs + leaseMs);
      // The topic first, from the metadata alone: a topic that is not there starts nothing.
      if (topic && !request.topicChecked && checkTopic) {
        const answer = await checkTopic({ cluster, topic, correlationId: request.correlationId });
        if (answer.status === 'missing') throw new UnknownTopicError(topic, cluster.name, answer.nearMisses, answer.reason);
      }
      const windowMs = cluster.load.shareDiagnosisSeconds * 1000;
      if (windowMs <= 0) return bounded(cluster, deadline, () => inner.diagnose(request));
      // Shared by cluster: the leader diagnoses the whole cluster, each requester keeps its topic's part.
      const { topic: _topic, ...clusterWide } = request;
      const report = await shareFlight<DiagnosisReport>(flights, {
        key: flightKey(request),
        correlationId: request.correlationId,
        cluster,
        windowMs,
        deadline,
        run: () => inner.diagnose(clusterWide),
        onWait: () => request.onProgress?.({ stage: 'waiting for the diagnosis already running', done: 0, total: 0 }),
      });
      return topic ? reportForTopic(report, topic) : report;
    },
  };
}
