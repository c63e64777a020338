// probe.sh reads each log once for all its line categories and sorts the
// matched lines in one awk pass: what each category gets must be what a grep of its
// own pattern would give (a line in every category it matches, the line after
// a match where the category asks for it, the newest lines up to its cap).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalExecutor } from '../../lib/hosts/local-executor.ts';
import { rawProbeSchema, type RawProbeOutput } from '../../lib/hosts/probe-schema.ts';
import { assembleDocument } from '../../lib/hosts/probe-records.ts';
import { createFakeHost } from './fake-host.ts';

const root = mkdtempSync(join(tmpdir(), 'kr-probe-categories-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function rawProbe(serverLog: string[], cleanerLog?: string[]): Promise<RawProbeOutput['logs']> {
  const h = createFakeHost(join(root, `h-${serverLog.length}`), { brokerId: 1, serverLog, ...(cleanerLog ? { cleanerLog } : {}) });
  const [res] = await new LocalExecutor().run([{ brokerId: 1, address: h.hostDir }], { script: 'probe', params: { config: h.configPath }, timeoutMs: 20_000, comment: 't' });
  return rawProbeSchema.parse(assembleDocument(res!.stdout)).logs;
}
/** Where line n (1-based) of `lines` starts in its log, in bytes. */
const offsetOf = (lines: string[], n: number) => lines.slice(0, n - 1).reduce((sum, l) => sum + Buffer.byteLength(l) + 1, 0);
/** The probe's "<offset>:" (a match) or "<offset>-" (the line after one) for line n of `lines`. */
const at = (lines: string[], n: number, sep = ':') => `${offsetOf(lines, n)}${sep}${lines[n - 1]}`;

describe('probe.sh line categories', () => {
  it('puts a line in every category it matches and keeps the line after a cleaner error, even when that line is a match of another category', async () => {
    const log = [
      'INFO Loading logs from log dirs ArrayBuffer(/d); Attempt to append an offset (5) to position 1 no larger than the last offset appended (9) to /d/t-0/0.index',
      'ERROR [kafka-log-cleaner-thread-0]: Error due to',
      'java.lang.IllegalStateException: boom',
      'ERROR [kafka-log-cleaner-thread-1]: Error due to',
      'INFO Loaded 3 logs in 10ms.',
      'INFO unrelated',
      'ERROR [kafka-log-cleaner-thread-2]: Error due to',
    ];
    const cleaner = ['WARN x Marking its partition (t-1) as uncleanable', 'java.lang.IllegalStateException: buffer'];
    const logs = await rawProbe(log, cleaner);
    expect(logs.lifecycle).toEqual([at(log, 1), at(log, 5)]);
    expect(logs.indexAppend).toEqual([at(log, 1)]);
    // grep -A 1: the line after each match, marked "-"; the last match has none.
    expect(logs.cleaner).toEqual([at(log, 2), at(log, 3, '-'), at(log, 4), at(log, 5, '-'), at(log, 7)]);
    // The cleaner log is numbered apart, from its own start.
    expect(logs.cleanerLog).toEqual([at(cleaner, 1), at(cleaner, 2, '-')]);
    expect(logs.recovery).toEqual([]);
  });

  it('keeps the newest lines of each category up to its cap, whatever the other categories hold', async () => {
    const log = [
      'INFO Loading logs.',
      ...Array.from({ length: 40 }, (_, i) => `WARN Corrupt index found, index file /d/t-${i}/0.index has non-zero size`),
      ...Array.from({ length: 30 }, (_, i) => `INFO Recovering unflushed segment ${i} in log t-${i}.`),
    ];
    const logs = await rawProbe(log);
    expect(logs.lifecycle).toEqual([at(log, 1)]);
    expect(logs.corruptIndex).toEqual(Array.from({ length: 15 }, (_, i) => at(log, 27 + i)));
    expect(logs.recovery).toEqual(Array.from({ length: 16 }, (_, i) => at(log, 56 + i)));
  });
});
