// At most `load.maxSnapshotsInFlight` reads of one cluster (a diagnosis's
// snapshot and probes, a restart check, an audit) at a time across every
// worker: the per-process caps (one snapshot per cluster, the probe cap) do
// not hold once several Lambda instances run. One item per cluster
// (cluster-reads:<name>) lists the holders and their lease; a read takes a
// place with a conditional write on the version it read. A holder's lease is
// its own time budget plus a margin, so a worker killed mid-read frees its
// place when the lease runs out, with no renewal to keep up.
import { randomUUID } from 'node:crypto';
import type { ClusterConfig } from '../config/schema.ts';
import type { Log } from '../runtime/log.ts';
import { ResponderError, errorMessage } from '../runtime/errors.ts';
import { jitteredBackoffMs, type StateStore } from '../state/state-store.ts';

interface Holder {
  id: string;
  /** Epoch ms. */
  until: number;
}

interface Slots {
  holders: Holder[];
}

export const clusterSlotsKey = (cluster: string): string => `cluster-reads:${cluster}`;

/** The cluster stayed busy past the caller's deadline: say so and stop (a retry would only add to the load). */
export class ClusterBusyError extends ResponderError {
  readonly failure = 'transient';
  override name = 'ClusterBusyError';
  constructor(
    readonly cluster: string,
    readonly inFlight: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`${cluster} is already being read by ${inFlight} other request${inFlight === 1 ? '' : 's'} (the bound on reads of a cluster in trouble); try again in ${retryAfterSeconds} s`);
  }
}

export interface SlotOptions {
  store: StateStore;
  log?: Log;
  /** Give up waiting at this epoch ms. */
  deadline: number;
  /** How long the place is held at most (the read's own budget plus a margin). */
  leaseMs: number;
  pollMs?: number;
  now?: () => number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Takes a place among the cluster's reads (waiting for one up to the deadline) and runs `read` in it. */
export async function withClusterSlot<T>(cluster: ClusterConfig, opts: SlotOptions, read: () => Promise<T>): Promise<T> {
  const { store, log } = opts;
  const now = opts.now ?? Date.now;
  const max = cluster.load.maxSnapshotsInFlight;
  const key = clusterSlotsKey(cluster.name);
  const id = randomUUID();
  const ttlSeconds = Math.ceil(opts.leaseMs / 1000) + 60;
  let announced = false;
  for (let round = 0; ; round++) {
    const current = await store.get<Slots>(key);
    const t = now();
    const live = (current?.value.holders ?? []).filter((h) => h.until > t);
    if (live.length < max) {
      const next: Slots = { holders: [...live, { id, until: t + opts.leaseMs }] };
      const won = current ? await store.replace(key, current.version, next, ttlSeconds) : await store.create(key, next, ttlSeconds);
      if (won) break;
      await sleep(1 + jitteredBackoffMs(Math.min(round, 5), 10, 200));
      continue;
    }
    const freeAt = Math.min(...live.map((h) => h.until));
    if (t >= opts.deadline) throw new ClusterBusyError(cluster.name, live.length, Math.max(1, Math.ceil((freeAt - t) / 1000)));
    if (!announced) {
      announced = true;
      log?.info('waiting for a place among the reads of this cluster', { cluster: cluster.name, inFlight: live.length, max });
    }
    await sleep(Math.min(opts.pollMs ?? 500, Math.max(1, opts.deadline - t)));
  }
  try {
    return await read();
  } finally {
    await release(store, key, id, ttlSeconds).catch((err: unknown) => log?.warn('could not free a place among the reads of a cluster (its lease runs out)', { cluster: cluster.name, error: errorMessage(err) }));
  }
}

async function release(store: StateStore, key: string, id: string, ttlSeconds: number): Promise<void> {
  for (let attempt = 0; attempt < 12; attempt++) {
    if (attempt > 0) await sleep(jitteredBackoffMs(attempt));
    const current = await store.get<Slots>(key);
    if (!current || !current.value.holders.some((h) => h.id === id)) return;
    if (await store.replace(key, current.version, { holders: current.value.holders.filter((h) => h.id !== id) }, ttlSeconds)) return;
  }
}
