// Scratch directories for tests, removed once the test file is done (a test
// that fails half-way leaves nothing in /tmp either). Each test file evaluates
// this module afresh, so the hook below belongs to the file that imports it.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

let root: string | null = null;

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = null;
});

/**
 * A temporary directory on a disk. Unit tests' TMPDIR may be in memory
 * (vitest.config.ts): a broker log dir made there is on tmpfs, which the probe
 * reports as a finding of its own.
 */
export function diskTmpdir(): string {
  return process.env.KR_DISK_TMPDIR ?? tmpdir();
}

export function scratchDir(prefix: string): string {
  root ??= mkdtempSync(join(tmpdir(), 'kr-test-'));
  mkdirSync(root, { recursive: true });
  return mkdtempSync(join(root, `${prefix}-`));
}
