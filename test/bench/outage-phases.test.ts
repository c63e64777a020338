// bench/outage.ts reads the run's own phase times from its summary message's
// Timing line (ms from the last approval). No timing here.
import { describe, expect, it } from 'vitest';
import { parsePhases } from '../../bench/outage/phases.ts';
import { formatElapsed } from '../../lib/runtime/format.ts';

describe("bench/outage: the run's own phases from its summary", () => {
  it('reads each phase of the Timing line, in ms, whatever unit the summary chose', () => {
    const text = `*make broker 3 lead orders-0: SUCCEEDED* in 12.3 s\nbroker 3 leads orders-0\n*Timing* (from the last approval): re-checked 120 ms · elected 310 ms · writable ${formatElapsed(420)} · done ${formatElapsed(12_400)}`;
    expect(Object.fromEntries(parsePhases(text))).toEqual({ 're-checked': 120, elected: 310, writable: 420, done: 12_400 });
  });

  it('reads nothing but the Timing line: the audit trail has durations of its own', () => {
    const text = '*What ran:*\n• 5. wait-reassignment: ok (10.0 s)\n*Audit trail*\n• step 5 wait-reassignment: ok — finished copying (watched: 11 looks, one every 1001 ms)';
    expect(parsePhases(text).size).toBe(0);
    expect(Object.fromEntries(parsePhases(`*Timing* (from the last approval): re-checked 60 ms · done 2 min\n${text}`))).toEqual({ 're-checked': 60, done: 120_000 });
  });
});
