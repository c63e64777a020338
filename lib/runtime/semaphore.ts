// Counting semaphores for bounding load on a sick cluster: requests in flight
// per broker, host probes at once, one snapshot per cluster. First come, first
// served, so a large request cannot be overtaken forever by small ones.

export class Semaphore {
  private available: number;
  private readonly waiting: { n: number; wake: () => void }[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`semaphore capacity must be a positive integer, got ${capacity}`);
    this.available = capacity;
  }

  /** Resolves when `n` permits (at most the capacity) are held; call the returned release once. */
  async acquire(n = 1): Promise<() => void> {
    const want = Math.min(Math.max(1, n), this.capacity);
    if (this.waiting.length === 0 && this.available >= want) this.available -= want;
    else await new Promise<void>((wake) => this.waiting.push({ n: want, wake }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.available += want;
      this.drain();
    };
  }

  async use<T>(fn: () => Promise<T>, n = 1): Promise<T> {
    const release = await this.acquire(n);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Permits held now (for tests and logs). */
  get inUse(): number {
    return this.capacity - this.available;
  }

  private drain(): void {
    while (this.waiting.length && this.waiting[0]!.n <= this.available) {
      const next = this.waiting.shift()!;
      this.available -= next.n;
      next.wake();
    }
  }
}

/** One semaphore per key (a broker address, a cluster), made on first use, process-wide. */
export class KeyedSemaphores {
  private readonly byKey = new Map<string, Semaphore>();

  /** The semaphore for `key`; a new capacity replaces an idle one (configuration changed). */
  for(key: string, capacity: number): Semaphore {
    let s = this.byKey.get(key);
    if (!s || (s.capacity !== capacity && s.inUse === 0)) {
      s = new Semaphore(capacity);
      this.byKey.set(key, s);
    }
    return s;
  }
}
