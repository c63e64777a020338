// Counts of one counter made at once share a write (lib/state/count-batches.ts):
// a burst against one window costs a write or two, never admits more than the
// limit, admits in arrival order, loses no count, and a counter that keeps
// moving under a batch (another process) falls back to one write per caller.
// Then the same on dynalite through DynamoStateStore: real conditional writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CountBatches, type CounterWrites } from '../../lib/state/count-batches.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';

/** One counter store with DynamoDB's conditional ADD; writes are held until release() so "at once" needs no timing. */
class FakeCounters implements CounterWrites {
  readonly values = new Map<string, number>();
  readonly adds: { key: string; by: number; limit?: number }[] = [];
  reads = 0;
  /** Added by "another process" right after each read of a batch that must share the room left. */
  interference = 0;
  failWith: Error | null = null;
  private held: (() => void)[] = [];
  holding = false;

  release(): void {
    this.holding = false;
    this.held.splice(0).forEach((go) => go());
  }

  async add(key: string, by: number, _ttl: number, limit?: number): Promise<boolean> {
    if (this.holding) await new Promise<void>((go) => this.held.push(go));
    this.adds.push({ key, by, ...(limit !== undefined ? { limit } : {}) });
    if (this.failWith) throw this.failWith;
    const current = this.values.get(key) ?? 0;
    if (limit !== undefined && current + by > limit) return false;
    this.values.set(key, current + by);
    return true;
  }

  async read(key: string): Promise<number> {
    this.reads++;
    const v = this.values.get(key) ?? 0;
    // Another process counts right after the read: the room just read is stale.
    if (this.interference) this.values.set(key, v + this.interference);
    return v;
  }
}

describe('CountBatches', () => {
  it('one caller: one write, as without batching', async () => {
    const writes = new FakeCounters();
    const batches = new CountBatches(writes);
    expect(await batches.count('k', 1, 60, 5)).toBe(true);
    expect(writes.adds).toEqual([{ key: 'k', by: 1, limit: 5 }]);
  });

  it('200 at once within the limit: all counted, in two writes (the first alone, then the rest together)', async () => {
    const writes = new FakeCounters();
    writes.holding = true;
    const batches = new CountBatches(writes);
    const results = Array.from({ length: 200 }, () => batches.count('k', 1, 60, 1000));
    writes.release();
    expect(await Promise.all(results)).toEqual(Array(200).fill(true));
    expect(writes.values.get('k')).toBe(200);
    expect(writes.adds.map((a) => a.by)).toEqual([1, 199]);
  });

  it('200 at once against a limit of 30: exactly 30 admitted, the first to arrive, and the counter stays at 30', async () => {
    const writes = new FakeCounters();
    writes.holding = true;
    const batches = new CountBatches(writes);
    const results = Array.from({ length: 200 }, () => batches.count('k', 1, 60, 30));
    writes.release();
    const counted = await Promise.all(results);
    expect(counted.filter(Boolean)).toHaveLength(30);
    expect(counted.slice(0, 30)).toEqual(Array(30).fill(true));
    expect(writes.values.get('k')).toBe(30);
    // The first alone, the batch of 199 refused whole, one read, the 29 that fit.
    expect(writes.adds.map((a) => a.by)).toEqual([1, 199, 29]);
    expect(writes.reads).toBe(1);
  });

  it('a full counter refuses a whole batch after one read, without a write per caller', async () => {
    const writes = new FakeCounters();
    writes.values.set('k', 30);
    writes.holding = true;
    const batches = new CountBatches(writes);
    const results = Array.from({ length: 50 }, () => batches.count('k', 1, 60, 30));
    writes.release();
    expect((await Promise.all(results)).some(Boolean)).toBe(false);
    expect(writes.adds.length).toBeLessThanOrEqual(2);
    expect(writes.values.get('k')).toBe(30);
  });

  it('counts without a limit (give-backs) are summed into one write, and other counters are not mixed in', async () => {
    const writes = new FakeCounters();
    writes.values.set('a', 10);
    writes.holding = true;
    const batches = new CountBatches(writes);
    const results = [...Array.from({ length: 6 }, () => batches.count('a', -1, 60)), batches.count('b', 1, 60, 3)];
    writes.release();
    expect(await Promise.all(results)).toEqual(Array(7).fill(true));
    expect(writes.values.get('a')).toBe(4);
    expect(writes.values.get('b')).toBe(1);
    expect(writes.adds.filter((a) => a.key === 'a').map((a) => a.by)).toEqual([-1, -5]);
  });

  it('a counter that keeps moving under the batch: each caller gets its own conditional write, and the limit holds', async () => {
    const writes = new FakeCounters();
    writes.holding = true;
    const batches = new CountBatches(writes);
    const results = Array.from({ length: 10 }, () => batches.count('k', 1, 60, 8));
    writes.interference = 1;
    writes.release();
    const counted = await Promise.all(results);
    expect(writes.values.get('k')).toBeLessThanOrEqual(8);
    // Admitted ones are in the counter, besides what the other process added.
    expect(counted.filter(Boolean).length).toBe(writes.values.get('k')! - writes.reads);
    // The fallback wrote once per caller of the batch that could not share its write.
    expect(writes.adds.filter((a) => a.by === 1).length).toBeGreaterThanOrEqual(9);
  });

  it("a store error fails that batch's callers, and the next burst is written again", async () => {
    const writes = new FakeCounters();
    writes.holding = true;
    writes.failWith = new Error('throttled for good');
    const batches = new CountBatches(writes);
    const failing = Array.from({ length: 5 }, () => batches.count('k', 1, 60, 30));
    writes.release();
    const settled = await Promise.allSettled(failing);
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    writes.failWith = null;
    expect(await batches.count('k', 1, 60, 30)).toBe(true);
    expect(writes.values.get('k')).toBe(1);
  });
});

describe('DynamoStateStore.count on dynalite: a burst against one window', () => {
  let db: DynaliteHandle;
  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => db.close());

  it('200 at once with a limit of 30: exactly 30 counted, the rest refused; give-backs all land', async () => {
    const counted = await Promise.all(Array.from({ length: 200 }, () => db.store.count('cmd-budget:cluster:sandbox:0', 1, 120, 30)));
    expect(counted.filter(Boolean)).toHaveLength(30);
    await Promise.all(Array.from({ length: 30 }, () => db.store.count('cmd-budget:cluster:sandbox:0', -1, 120)));
    // All 30 slots free again: exactly 30 fit once more.
    const again = await Promise.all(Array.from({ length: 40 }, () => db.store.count('cmd-budget:cluster:sandbox:0', 1, 120, 30)));
    expect(again.filter(Boolean)).toHaveLength(30);
  });

  it('a count larger than its limit never fits, even on an absent counter', async () => {
    expect(await db.store.count('fresh-counter', 5, 60, 3)).toBe(false);
    expect(await db.store.count('fresh-counter', 3, 60, 3)).toBe(true);
  });
});
