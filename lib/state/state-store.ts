// Small key/value state with optimistic concurrency: replay dedupe, the thread
// of each alert group, flapping history, job records. Every write that decides
// something ("first one wins") is a conditional write, so two Lambdas racing on
// the same key cannot both win. Items carry an expiry (epoch seconds, the
// DynamoDB TTL attribute); TTL deletion is lazy, so expiry is checked on read
// and an expired item counts as absent for create().

export interface StoredItem<T = unknown> {
  value: T;
  /** Incremented by every successful write; replace() compares it. */
  version: number;
  /** Epoch seconds. */
  expiresAt: number;
}

export interface StateStore {
  get<T = unknown>(key: string): Promise<StoredItem<T> | null>;
  /** Writes only if the key is absent (or expired). True when this call created it. */
  create<T>(key: string, value: T, ttlSeconds: number): Promise<boolean>;
  /** Writes only if the stored version still equals expectedVersion. True on success. */
  replace<T>(key: string, expectedVersion: number, value: T, ttlSeconds: number): Promise<boolean>;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * Read-modify-write with retries on a lost race. `update` receives the current
 * value (or null) and returns the new one; it may run more than once.
 */
export async function mutate<T>(
  store: StateStore,
  key: string,
  ttlSeconds: number,
  update: (current: T | null) => T,
  attempts = 8,
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const current = await store.get<T>(key);
    const next = update(current ? current.value : null);
    const ok = current ? await store.replace(key, current.version, next, ttlSeconds) : await store.create(key, next, ttlSeconds);
    if (ok) return next;
  }
  throw new Error(`state ${key}: too much contention (${attempts} attempts)`);
}

/**
 * In-process store for the local server only (documented in the README): one
 * process, so a plain Map gives the same first-writer-wins answers. Production
 * and tests of conditional writes use DynamoStateStore.
 */
export class MemoryStateStore implements StateStore {
  private readonly items = new Map<string, StoredItem>();
  private writes = 0;

  async get<T>(key: string): Promise<StoredItem<T> | null> {
    const item = this.items.get(key);
    if (!item || item.expiresAt <= nowSeconds()) return null;
    return structuredClone(item) as StoredItem<T>;
  }

  async create<T>(key: string, value: T, ttlSeconds: number): Promise<boolean> {
    if (++this.writes % 1000 === 0) this.sweep();
    if (await this.get(key)) return false;
    this.items.set(key, { value: structuredClone(value), version: 1, expiresAt: nowSeconds() + ttlSeconds });
    return true;
  }

  async replace<T>(key: string, expectedVersion: number, value: T, ttlSeconds: number): Promise<boolean> {
    const item = await this.get(key);
    if (!item || item.version !== expectedVersion) return false;
    this.items.set(key, { value: structuredClone(value), version: expectedVersion + 1, expiresAt: nowSeconds() + ttlSeconds });
    return true;
  }

  /** What DynamoDB's TTL does, for a process that runs for days. */
  private sweep(): void {
    const now = nowSeconds();
    for (const [key, item] of this.items) if (item.expiresAt <= now) this.items.delete(key);
  }
}
