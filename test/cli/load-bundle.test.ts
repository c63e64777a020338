// bin/load-bundle.js: the CLI bundle's own V8 code cache, one per command,
// written after the command ran, read by the next run of that command; a
// changed bundle never reads an old cache, and a folder someone else could
// write is not trusted with code. Each load is a fresh Node process, as a run is.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = mkdtempSync(join(tmpdir(), 'kr-load-bundle-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const loader = join(import.meta.dirname, '..', '..', 'bin', 'load-bundle.js');
const cacheRoot = join(root, 'cache');
const cacheDir = join(cacheRoot, `kafka-responder-${process.getuid!()}`);

/** A bundle-shaped script: exports main, which calls a function compiled only when it runs. */
function writeBundle(name: string, answer: number): string {
  const file = join(root, name);
  writeFileSync(file, `"use strict";function later(){return ${answer}}exports.main=async()=>later();\n`);
  return file;
}

/** One run: load, main(), save; what it saw. */
function run(bundle: string, command: string): { answer: number; cacheHit: boolean } {
  const script = `import { loadBundle } from ${JSON.stringify(loader)};
const { exports, saveCodeCache, cacheHit } = loadBundle(${JSON.stringify(bundle)}, ${JSON.stringify(command)});
const answer = await exports.main();
saveCodeCache();
console.log(JSON.stringify({ answer, cacheHit }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, NODE_COMPILE_CACHE: cacheRoot }, encoding: 'utf8' });
  return JSON.parse(out) as { answer: number; cacheHit: boolean };
}

describe('the CLI bundle with its code cache', () => {
  it('a command writes its cache after its first run and reads it on the next; another command has its own', () => {
    const bundle = writeBundle('a.cjs', 1);
    expect(run(bundle, 'diagnose')).toEqual({ answer: 1, cacheHit: false });
    expect(readdirSync(cacheDir).filter((f) => f.startsWith('diagnose-'))).toHaveLength(1);
    expect(run(bundle, 'diagnose')).toEqual({ answer: 1, cacheHit: true });
    expect(run(bundle, 'audit')).toEqual({ answer: 1, cacheHit: false });
    expect(run(bundle, 'audit')).toEqual({ answer: 1, cacheHit: true });
  });

  it('a rebuilt bundle of the same length reads no old cache, runs its own code, and its cache replaces the old one', () => {
    const bundle = writeBundle('b.cjs', 2);
    expect(run(bundle, 'can-restart')).toEqual({ answer: 2, cacheHit: false });
    writeBundle('b.cjs', 3);
    expect(run(bundle, 'can-restart')).toEqual({ answer: 3, cacheHit: false });
    expect(readdirSync(cacheDir).filter((f) => f.startsWith('can-restart-'))).toHaveLength(1);
    expect(run(bundle, 'can-restart')).toEqual({ answer: 3, cacheHit: true });
  });

  it('a cache folder others can write is neither read nor written', () => {
    const bundle = writeBundle('c.cjs', 4);
    run(bundle, 'sandbox');
    chmodSync(cacheDir, 0o777);
    try {
      const before = readdirSync(cacheDir);
      expect(run(bundle, 'sandbox')).toEqual({ answer: 4, cacheHit: false });
      expect(run(bundle, 'serve')).toEqual({ answer: 4, cacheHit: false });
      expect(readdirSync(cacheDir)).toEqual(before);
    } finally {
      chmodSync(cacheDir, 0o700);
    }
  });
});
