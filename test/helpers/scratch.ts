// Scratch directories for tests, removed once the test file is done (a test
// that fails half-way leaves nothing in /tmp either). Files of the unit
// project share one instance of this module, so the hook that removes a file's
// directories is not registered here but by test/helpers/scratch-cleanup.ts,
// a setup file (vitest.config.ts) that vitest runs again for every test file.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let root: string | null = null;

/** Removes the scratch directories made since the last call: after each test file. */
export function removeScratch(): void {
  if (root) rmSync(root, { recursive: true, force: true });
  root = null;
}

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
