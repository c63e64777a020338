// The semaphores that bound load on a cluster: never more than the capacity
// held, first come first served (a wide request is not starved), released once.
import { describe, expect, it } from 'vitest';
import { KeyedSemaphores, Semaphore } from '../../lib/runtime/semaphore.ts';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('Semaphore', () => {
  it('holds at most its capacity across 50 concurrent users', async () => {
    const s = new Semaphore(4);
    let inFlight = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 50 }, () =>
        s.use(async () => {
          peak = Math.max(peak, ++inFlight);
          await tick();
          inFlight--;
        }),
      ),
    );
    expect(peak).toBe(4);
    expect(s.inUse).toBe(0);
  });

  it('serves in arrival order, so a request for several permits is not overtaken by later single ones', async () => {
    const s = new Semaphore(3);
    const order: string[] = [];
    const first = await s.acquire(2);
    const wide = s.acquire(3).then((r) => (order.push('wide'), r));
    const narrow = s.acquire(1).then((r) => (order.push('narrow'), r));
    await tick();
    expect(order).toEqual([]);
    first();
    (await wide)();
    (await narrow)();
    expect(order).toEqual(['wide', 'narrow']);
  });

  it('a release called twice gives back its permits once', async () => {
    const s = new Semaphore(1);
    const r = await s.acquire();
    r();
    r();
    expect(s.inUse).toBe(0);
    await s.acquire();
    expect(s.inUse).toBe(1);
  });

  it('one semaphore per key; an idle one follows a new capacity', () => {
    const k = new KeyedSemaphores();
    expect(k.for('a', 2)).toBe(k.for('a', 2));
    expect(k.for('a', 2)).not.toBe(k.for('b', 2));
    expect(k.for('a', 5).capacity).toBe(5);
  });
});
