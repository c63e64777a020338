// A broker's start is recognised from what its server.log gained since the
// spawn, even when log4j rolled the old file away at start (it did, once an
// hour had passed, and the sandbox then waited for a marker it could not see).
import { appendFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markLog, readSince } from '../../sandbox/cluster.ts';
import { scratchDir } from '../helpers/scratch.ts';

describe('server.log marks', () => {
  it('reads only what was appended after the mark', async () => {
    const log = join(scratchDir('kr-mark'), 'server.log');
    await writeFile(log, 'old start\nKafka Server started\n');
    const mark = await markLog(log);
    expect(await readSince(log, mark)).toBe('');
    await appendFile(log, 'new line\n');
    expect(await readSince(log, mark)).toBe('new line\n');
  });

  it('reads the whole new file after a rollover, shorter or longer than the old one', async () => {
    const dir = scratchDir('kr-mark');
    const log = join(dir, 'server.log');
    await writeFile(log, 'x'.repeat(10_000));
    const mark = await markLog(log);
    await rename(log, `${log}.2026-11-29-07`);
    await writeFile(log, 'Kafka Server started\n');
    expect(await readSince(log, mark)).toBe('Kafka Server started\n');
    await appendFile(log, 'y'.repeat(20_000));
    expect(await readSince(log, mark)).toContain('Kafka Server started');
  });

  it('a missing log reads as empty, and a log created after the mark is read whole', async () => {
    const log = join(scratchDir('kr-mark'), 'server.log');
    const mark = await markLog(log);
    expect(await readSince(log, mark)).toBe('');
    await writeFile(log, 'first start\n');
    expect(await readSince(log, mark)).toBe('first start\n');
  });
});
