// The run's own phase times, as the run's summary in the plan thread states them.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, min: 60_000 };

/**
 * The run's own phase times from its summary's Timing line, e.g. `*Timing*
 * (from the last approval): re-checked 120 ms · elected 310 ms · writable
 * 420 ms · done 12.4 s`, in ms from the approval; phases keyed in lower case.
 * Only that line is read: the audit trail beside it has durations of its own.
 */
export function parsePhases(text: string): Map<string, number> {
  const phases = new Map<string, number>();
  const line = text.split(/\\n|\n/).find((l) => l.includes('Timing'));
  if (!line) return phases;
  const pairs = line.slice(line.indexOf(':') + 1).split('·');
  for (const pair of pairs) {
    const m = /([a-z][a-z-]*)\s+(\d+(?:\.\d+)?)\s*(ms|s|min)\b/i.exec(pair);
    if (m && !phases.has(m[1]!.toLowerCase())) phases.set(m[1]!.toLowerCase(), Number(m[2]) * UNIT_MS[m[3]!]!);
  }
  return phases;
}
