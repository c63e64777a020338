// Small key/value state with optimistic concurrency: replay dedupe, the thread
// of each alert group, flapping history, job records. Every write that decides
// something ("first one wins") is a conditional write, so two Lambdas racing on
// the same key cannot both win. Items carry an expiry (epoch seconds, the
// DynamoDB TTL attribute); TTL deletion is lazy, so expiry is checked on read
// and an expired item counts as absent for create().
//
// Listings (`/kafka status`: running jobs, open incidents, undelivered
// messages) are one item per entry, written without a condition and read back
// with a query on the list they were put in: no shared item that every request
// rewrites, so no contention on the ack path.

export interface StoredItem<T = unknown> {
  value: T;
  /** Incremented by every successful write; replace() compares it. */
  version: number;
  /** Epoch seconds. */
  expiresAt: number;
}

export interface ListedItem<T = unknown> {
  key: string;
  value: T;
  /** Epoch milliseconds of the put(). */
  listedAt: number;
}

export interface StateStore {
  get<T = unknown>(key: string): Promise<StoredItem<T> | null>;
  /** Writes only if the key is absent (or expired). True when this call created it. */
  create<T>(key: string, value: T, ttlSeconds: number): Promise<boolean>;
  /** Writes only if the stored version still equals expectedVersion. True on success. */
  replace<T>(key: string, expectedVersion: number, value: T, ttlSeconds: number): Promise<boolean>;
  /** Unconditional write of an item that belongs to one list (see list()). */
  put<T>(key: string, value: T, ttlSeconds: number, list: string): Promise<void>;
  /** The key is gone for get() and list() (an expired tombstone, no delete permission needed). */
  remove(key: string): Promise<void>;
  /** Unexpired items put in `list`, newest first, at most `limit`. */
  list<T = unknown>(list: string, limit: number): Promise<ListedItem<T>[]>;
  /**
   * Adds `by` to the counter at `key` in one atomic write, unless that would
   * take it past `limit` (no limit: always). True when counted.
   * Concurrent callers never lose a count nor retry against each other: a
   * burst on one counter costs a write or two, not one each (DynamoStateStore
   * batches them, lib/state/count-batches.ts).
   */
  count(key: string, by: number, ttlSeconds: number, limit?: number): Promise<boolean>;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** "Full jitter" backoff: a random wait up to base·2^attempt, capped, so racing writers spread out. */
export function jitteredBackoffMs(attempt: number, baseMs = 10, capMs = 500, random = Math.random): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
}

/**
 * Read-modify-write with retries on a lost race. `update` receives the current
 * value (or null) and returns the new one; it may run more than once. Lost
 * races back off with jitter, so a crowd of writers on one key drains instead
 * of colliding again in lockstep.
 */
export async function mutate<T>(
  store: StateStore,
  key: string,
  ttlSeconds: number,
  update: (current: T | null) => T,
  attempts = 12,
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await sleep(jitteredBackoffMs(i));
    const current = await store.get<T>(key);
    const next = update(current ? current.value : null);
    const ok = current ? await store.replace(key, current.version, next, ttlSeconds) : await store.create(key, next, ttlSeconds);
    if (ok) return next;
  }
  throw new Error(`state ${key}: too much contention (${attempts} attempts)`);
}

/**
 * In-process store: `serve` keeps its ack path's short-lived keys here when
 * its DynamoDB is an in-process dynalite (lib/local/server.ts), and all its
 * state when no DynamoDB-compatible store could be opened (lib/local/approvals.ts).
 * One process, so a plain Map gives the same first-writer-wins answers: every
 * check and its write happen in one synchronous step, so no two concurrent
 * calls both win. Production and every test of conditional writes use
 * DynamoStateStore (on dynalite in tests).
 */
export class MemoryStateStore implements StateStore {
  private readonly items = new Map<string, StoredItem & { list?: string; listedAt?: number }>();
  private writes = 0;

  /** The unexpired item at `key`, read synchronously (no other call runs between a check and its write). */
  private live(key: string) {
    const item = this.items.get(key);
    return item && item.expiresAt > nowSeconds() ? item : undefined;
  }

  async get<T>(key: string): Promise<StoredItem<T> | null> {
    const item = this.live(key);
    if (!item) return null;
    return structuredClone({ value: item.value, version: item.version, expiresAt: item.expiresAt }) as StoredItem<T>;
  }

  async create<T>(key: string, value: T, ttlSeconds: number): Promise<boolean> {
    if (++this.writes % 1000 === 0) this.sweep();
    if (this.live(key)) return false;
    this.items.set(key, { value: structuredClone(value), version: 1, expiresAt: nowSeconds() + ttlSeconds });
    return true;
  }

  async replace<T>(key: string, expectedVersion: number, value: T, ttlSeconds: number): Promise<boolean> {
    const item = this.live(key);
    if (!item || item.version !== expectedVersion) return false;
    this.items.set(key, { value: structuredClone(value), version: expectedVersion + 1, expiresAt: nowSeconds() + ttlSeconds });
    return true;
  }

  async put<T>(key: string, value: T, ttlSeconds: number, list: string): Promise<void> {
    if (++this.writes % 1000 === 0) this.sweep();
    const version = (this.live(key)?.version ?? 0) + 1;
    this.items.set(key, { value: structuredClone(value), version, expiresAt: nowSeconds() + ttlSeconds, list, listedAt: Date.now() });
  }

  async remove(key: string): Promise<void> {
    this.items.delete(key);
  }

  async list<T>(list: string, limit: number): Promise<ListedItem<T>[]> {
    const now = nowSeconds();
    return [...this.items]
      .filter(([, i]) => i.list === list && i.expiresAt > now)
      .map(([key, i]) => ({ key, value: structuredClone(i.value) as T, listedAt: i.listedAt ?? 0 }))
      .sort((a, b) => b.listedAt - a.listedAt)
      .slice(0, limit);
  }

  private readonly counters = new Map<string, { n: number; expiresAt: number }>();

  async count(key: string, by: number, ttlSeconds: number, limit?: number): Promise<boolean> {
    const now = nowSeconds();
    const current = this.counters.get(key);
    const live = current && current.expiresAt > now ? current : { n: 0, expiresAt: now + ttlSeconds };
    if (limit !== undefined && live.n + by > limit) return false;
    this.counters.set(key, { n: live.n + by, expiresAt: live.expiresAt });
    if (++this.writes % 1000 === 0) this.sweep();
    return true;
  }

  /** What DynamoDB's TTL does, for a process that runs for days. */
  private sweep(): void {
    const now = nowSeconds();
    for (const [key, item] of this.items) if (item.expiresAt <= now) this.items.delete(key);
    for (const [key, c] of this.counters) if (c.expiresAt <= now) this.counters.delete(key);
  }
}
