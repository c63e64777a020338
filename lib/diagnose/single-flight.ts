// One diagnosis per cluster and scope at a time, across every worker: the
// first request takes a short lease in the state store (a conditional write)
// and runs the diagnosis; requests for the same cluster and scope that arrive
// while it runs, or within the cluster's `load.shareDiagnosisSeconds` after it
// finished, wait for and return its stored result instead of probing the sick
// cluster again. Each requester still renders the result in its own thread.
//
// The leader renews its lease while it works. A leader that dies (its Lambda
// killed) stops renewing: the lease runs out and a waiting requester takes
// over. A waiter never waits past its own deadline (the Lambda's time left).
import { createHash, randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import { jitteredBackoffMs, type StateStore } from '../state/state-store.ts';
import type { DiagnoseRequest, Diagnoser } from './diagnoser.ts';
import type { DiagnosisReport } from './types.ts';

interface Flight {
  state: 'running' | 'done' | 'failed' | 'unshared';
  /** The leading request's correlation id, and a per-attempt id (a retried job leads again at once). */
  leader: string;
  attempt: string;
  /** Epoch ms. */
  leaseUntil: number;
  startedAt: number;
  finishedAt?: number;
  /** gzip + base64 JSON of the report: a large cluster's report stays well under DynamoDB's 400 KB item. */
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
export class SharedDiagnosisTimeout extends Error {
  override name = 'SharedDiagnosisTimeout';
}

/** The flight's key: cluster and scope (topic, brokers), so a topic diagnosis never answers a cluster-wide one. */
export function flightKey(request: Pick<DiagnoseRequest, 'cluster' | 'topic' | 'brokers'>): string {
  const scope = JSON.stringify({ topic: request.topic ?? null, brokers: [...(request.brokers ?? [])].sort((a, b) => a - b) });
  return `diagnosis-flight:${request.cluster.name}:${createHash('sha256').update(scope).digest('hex').slice(0, 24)}`;
}

const MAX_ITEM_BYTES = 350_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function singleFlightDiagnoser(inner: Diagnoser, options: SingleFlightOptions): Diagnoser {
  const { store, log } = options;
  const leaseMs = options.leaseMs ?? 20_000;
  const pollMs = options.pollMs ?? 500;
  const now = options.now ?? Date.now;

  async function lead(request: DiagnoseRequest, key: string, flight: Flight, version: number, ttlSeconds: number): Promise<DiagnosisReport> {
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
      const report = await inner.diagnose(request);
      clearInterval(renew);
      const packed = gzipSync(JSON.stringify(report)).toString('base64');
      await write((f) => ({
        ...f,
        ...(packed.length <= MAX_ITEM_BYTES ? { state: 'done' as const, report: packed } : { state: 'unshared' as const }),
        finishedAt: now(),
        leaseUntil: now(),
      }));
      return report;
    } catch (err) {
      clearInterval(renew);
      await write((f) => ({ ...f, state: 'failed', error: errorMessage(err), finishedAt: now(), leaseUntil: now() }));
      throw err;
    } finally {
      clearInterval(renew);
    }
  }

  return {
    canRestart: (request) => inner.canRestart(request),
    async diagnose(request) {
      const windowMs = request.cluster.load.shareDiagnosisSeconds * 1000;
      if (windowMs <= 0) return inner.diagnose(request);
      const key = flightKey(request);
      const ttlSeconds = Math.ceil((windowMs + leaseMs) / 1000) + 600;
      const deadline = now() + (request.deadlineMs ?? request.cluster.diagnosisTimeoutMs + leaseMs);
      let announced = false;
      for (let round = 0; ; round++) {
        const current = await store.get<Flight>(key);
        const f = current?.value;
        const t = now();
        if (f && f.state === 'done' && f.report && t - (f.finishedAt ?? 0) <= windowMs) {
          log?.info('diagnosis shared', { key, leader: f.leader, ageMs: t - (f.finishedAt ?? 0) });
          return JSON.parse(gunzipSync(Buffer.from(f.report, 'base64')).toString('utf8')) as DiagnosisReport;
        }
        if (f && f.state === 'failed' && t - (f.finishedAt ?? 0) <= windowMs) {
          throw new Error(f.error ?? 'the diagnosis failed');
        }
        // Running elsewhere, alive: wait (a retry of the same request takes its own dead attempt over).
        if (f && f.state === 'running' && f.leaseUntil > t && f.leader !== request.correlationId) {
          if (t >= deadline) {
            throw new SharedDiagnosisTimeout(`the diagnosis of ${request.cluster.name} already running did not finish in time here; its result is posted where it was requested`);
          }
          if (!announced) {
            announced = true;
            log?.info('joining the diagnosis already running', { key, leader: f.leader });
            request.onProgress?.({ stage: 'waiting for the diagnosis already running', done: 0, total: 0 });
          }
          await sleep(Math.min(pollMs, Math.max(1, deadline - t)));
          continue;
        }
        // Nothing usable: lead. The conditional write decides between racing requesters.
        const mine: Flight = { state: 'running', leader: request.correlationId, attempt: randomUUID(), leaseUntil: t + leaseMs, startedAt: t };
        const won = current ? await store.replace(key, current.version, mine, ttlSeconds) : await store.create(key, mine, ttlSeconds);
        if (won) {
          if (f?.state === 'running') log?.warn('took over a diagnosis whose leader stopped renewing its lease', { key, previous: f.leader });
          return lead(request, key, mine, current ? current.version + 1 : 1, ttlSeconds);
        }
        await sleep(1 + jitteredBackoffMs(Math.min(round, 5), 10, 200));
      }
    },
  };
}
