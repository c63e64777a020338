import { describe, expect, it } from 'vitest';
import { once } from '../../lib/runtime/once.ts';

describe('once', () => {
  it('builds on the first call only, even a value that is undefined', () => {
    let builds = 0;
    const schema = once(() => ({ n: ++builds }));
    expect(builds).toBe(0);
    expect(schema()).toBe(schema());
    expect(builds).toBe(1);
    let empties = 0;
    const nothing = once(() => {
      empties++;
      return undefined;
    });
    nothing();
    nothing();
    expect(empties).toBe(1);
  });
});
