// probe-logs.sh finds candidate lines with grep -F on each category's fixed
// strings, then applies the category's ERE: a line the ERE matches must hold one
// of them, or grep drops it before awk sees it. Their first bytes are rare in
// Kafka's logs: grep -F tries its patterns at every byte that starts one, and a
// space or a common letter there made the scan of 8 MB three to five times slower.
import { describe, expect, it } from 'vitest';
import { scriptText } from '../../lib/hosts/script-text.ts';
import { CASES } from './log-pattern-cases.ts';

const text = scriptText('probe-logs.sh');
const variables = new Map([...text.matchAll(/^([A-Z_]+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
const valueOf = (word: string) => (word.startsWith('"$') ? variables.get(word.slice(2, -1)) : word.slice(1, -1));
const categories = [...text.matchAll(/^category (\S+) +(\S+) +\d+ +\d+ +\S+ +('[^']*'|"\$[A-Z_]+") +('[^']*'|"\$[A-Z_]+")$/gm)].map((m) => ({
  name: m[1]!,
  ere: new RegExp(valueOf(m[3]!)!),
  fixed: valueOf(m[4]!)!.split('|'),
}));

describe("probe-logs.sh's fixed strings", () => {
  it('are read for every category', () => {
    expect(categories.map((c) => c.name)).toEqual(['lifecycle', 'unclean', 'recovery', 'loadProgress', 'corruptIndex', 'indexAppend', 'cleaner', 'unsupported', 'offsetsLoadErrors', 'offsetsLoad', 'shutdown', 'cleanerLog']);
  });

  it('every line of every Kafka version that a category ERE matches holds one of its fixed strings', () => {
    let matched = 0;
    for (const c of categories) {
      for (const [version, line] of CASES) {
        if (!c.ere.test(line)) continue;
        matched++;
        expect(c.fixed.some((f) => line.includes(f)), `${c.name} (${version}): ${line}`).toBe(true);
      }
    }
    expect(matched).toBeGreaterThan(50);
  });

  it('every line of every Kafka version the log patterns know is in a category', () => {
    for (const [version, line, kind] of CASES) expect(categories.some((c) => c.ere.test(line)), `${kind} (${version}): ${line}`).toBe(true);
  });

  it('each starts with a byte rare in Kafka logs: an upper-case letter', () => {
    for (const c of categories) for (const f of c.fixed) expect(f, c.name).toMatch(/^[A-Z]/);
  });
});
