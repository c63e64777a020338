// Counter writes batched per counter: while one write to a counter is in
// flight, the calls that arrive for the same counter wait and then go out as
// one write of their sum. Every write to one item is serialized by the store
// (DynamoDB's hot key, dynalite's per-key lock), so a burst of 200 commands
// counted against one cluster's window was a queue of 200 writes; batched it
// is about two. One caller at a time (a Lambda instance) sees no difference:
// its call is written at once, alone.
//
// A batch against a limit that does not fit whole admits its callers in
// arrival order, as many as the room left allows (read, then one conditional
// write of their sum); the others are refused, as their own writes would have
// been. If the counter keeps moving under us (another process writing), the
// batch falls back to one conditional write per caller, as without batching.

/** The store's own counter primitives (lib/state/dynamo-state-store.ts). */
export interface CounterWrites {
  /** Adds `by` in one atomic write, conditional on staying within `limit` when given; false when the condition failed. */
  add(key: string, by: number, ttlSeconds: number, limit?: number): Promise<boolean>;
  /** The counter's current value, 0 when absent (a consistent read). */
  read(key: string): Promise<number>;
}

interface Caller {
  by: number;
  resolve: (counted: boolean) => void;
  reject: (err: unknown) => void;
}

interface Batch {
  key: string;
  ttlSeconds: number;
  limit: number | undefined;
  callers: Caller[];
}

/** Rounds of read-then-write before a batch gives up on sharing one write (the counter changed under it each time). */
const SHARED_ROUNDS = 3;

const sum = (callers: Caller[]) => callers.reduce((n, c) => n + c.by, 0);

/** The longest run of callers, in arrival order, whose counts fit in `room`. */
function firstThatFit(callers: Caller[], room: number): Caller[] {
  const fit: Caller[] = [];
  let total = 0;
  for (const c of callers) {
    if (total + c.by > room) break;
    total += c.by;
    fit.push(c);
  }
  return fit;
}

export class CountBatches {
  /** Callers waiting for their counter's write in flight, by batch id. */
  private readonly waiting = new Map<string, Batch>();
  private readonly inFlight = new Set<string>();

  constructor(private readonly writes: CounterWrites) {}

  count(key: string, by: number, ttlSeconds: number, limit?: number): Promise<boolean> {
    // A limited count of nothing or less is not an admission: written as it comes.
    if (limit !== undefined && by <= 0) return this.writes.add(key, by, ttlSeconds, limit);
    // Only calls that would write the same thing share a write.
    const id = JSON.stringify([key, ttlSeconds, limit ?? null]);
    return new Promise<boolean>((resolve, reject) => {
      let batch = this.waiting.get(id);
      if (!batch) this.waiting.set(id, (batch = { key, ttlSeconds, limit, callers: [] }));
      batch.callers.push({ by, resolve, reject });
      if (!this.inFlight.has(id)) void this.drain(id);
    });
  }

  /** Writes the waiting batch of `id`, then the one that gathered meanwhile, until none is left. */
  private async drain(id: string): Promise<void> {
    this.inFlight.add(id);
    try {
      for (let batch = this.waiting.get(id); batch; batch = this.waiting.get(id)) {
        this.waiting.delete(id);
        await this.settle(batch).catch((err: unknown) => batch!.callers.forEach((c) => c.reject(err)));
      }
    } finally {
      this.inFlight.delete(id);
    }
  }

  private async settle({ key, ttlSeconds, limit, callers }: Batch): Promise<void> {
    const counted = await this.writes.add(key, sum(callers), ttlSeconds, limit);
    if (counted || limit === undefined || callers.length === 1) {
      callers.forEach((c) => c.resolve(counted));
      return;
    }
    for (let round = 0; round < SHARED_ROUNDS; round++) {
      const room = limit - (await this.writes.read(key));
      const admitted = firstThatFit(callers, room);
      if (!admitted.length) {
        callers.forEach((c) => c.resolve(false));
        return;
      }
      if (await this.writes.add(key, sum(admitted), ttlSeconds, limit)) {
        callers.forEach((c, i) => c.resolve(i < admitted.length));
        return;
      }
    }
    // Each its own conditional write, in arrival order.
    for (const c of callers) c.resolve(await this.writes.add(key, c.by, ttlSeconds, limit));
  }
}
