// The run's own phase times, as the run's summary in the plan thread states them.

/**
 * The run's own phase times in its summary, e.g. `re-checked 120 ms · elected
 * 310 ms · writable 420 ms · done 900 ms` (ms from the second approval): every
 * `<phase> <n> ms` pair (also `<n>ms`, `<phase>: <n> ms`), read loosely; phases keyed in lower case.
 */
export function parsePhases(text: string): Map<string, number> {
  const phases = new Map<string, number>();
  const pair = /([A-Za-z][A-Za-z-]*(?: [A-Za-z][A-Za-z-]*)?)(?:\s*[:=]\s*|\s+)(\d+(?:[.,]\d+)?)\s*ms\b/g;
  for (const m of text.matchAll(pair)) {
    // Only the last word names the phase ("after re-checked 120 ms" → re-checked).
    const name = m[1]!.toLowerCase().split(' ').at(-1)!;
    const n = Number(m[2]!.replace(',', '.'));
    if (!phases.has(name)) phases.set(name, n);
  }
  return phases;
}
