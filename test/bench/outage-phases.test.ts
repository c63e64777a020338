// bench/outage.ts reads the run's own phase times from its summary message: the
// `<phase> <n> ms` pairs (ms from the second approval), loosely. No timing here.
import { describe, expect, it } from 'vitest';
import { parsePhases } from '../../bench/outage/phases.ts';

describe("bench/outage: the run's own phases from its summary", () => {
  it('reads each `<phase> <n> ms` pair of the summary line, keyed in lower case', () => {
    const text = 'make broker 3 lead orders-0: SUCCEEDED\nbroker 3 leads orders-0\nre-checked 120 ms · elected 310 ms · writable 420 ms · done 900 ms';
    expect(Object.fromEntries(parsePhases(text))).toEqual({ 're-checked': 120, elected: 310, writable: 420, done: 900 });
  });

  it('reads them loosely: colons, equals signs, no space before ms, decimals, capitals', () => {
    expect(Object.fromEntries(parsePhases('Re-checked: 120ms, elected=310 ms; writable 4.5 ms — Done 1200 ms'))).toEqual({ 're-checked': 120, elected: 310, writable: 4.5, done: 1200 });
  });

  it('has nothing to read in a summary without phase times (seconds are not phases)', () => {
    expect(parsePhases('make broker 3 lead orders-0: SUCCEEDED in 7.9 s\n• 1. reassign: ok').size).toBe(0);
  });
});
