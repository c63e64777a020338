import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FINDING_KINDS } from '../../lib/diagnose/checks/index.ts';

const dir = join(import.meta.dirname, '..', '..', 'runbooks');
const SECTIONS = ['## What it means', '## How to confirm', '## How to fix', '## What not to do'];

describe('runbooks', () => {
  it.each(FINDING_KINDS.map((k) => [k]))('%s has a runbook with every section, in order, each non-empty', (kind) => {
    const text = readFileSync(join(dir, `${kind}.md`), 'utf8');
    expect(text.startsWith(`# ${kind}`)).toBe(true);
    let last = -1;
    for (const heading of SECTIONS) {
      const at = text.indexOf(heading);
      expect(at, heading).toBeGreaterThan(last);
      last = at;
    }
    for (let i = 0; i < SECTIONS.length; i++) {
      const start = text.indexOf(SECTIONS[i]!) + SECTIONS[i]!.length;
      const end = i + 1 < SECTIONS.length ? text.indexOf(SECTIONS[i + 1]!) : text.length;
      expect(text.slice(start, end).trim().length, `${kind}: ${SECTIONS[i]}`).toBeGreaterThan(40);
    }
  });

  it('has no runbook for a kind that does not exist', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));
    expect(files.filter((f) => !(FINDING_KINDS as readonly string[]).includes(f))).toEqual([]);
  });

  it('says never to restart every __consumer_offsets replica holder at once and never to wipe the last in-sync replica', () => {
    expect(readFileSync(join(dir, 'coordinator-loading.md'), 'utf8')).toMatch(/Never restart every replica holder of a `__consumer_offsets` partition at\s+once/);
    expect(readFileSync(join(dir, 'offline-partition.md'), 'utf8')).toMatch(/Do not wipe or delete the log directory of the last in-sync replica/);
  });
});
