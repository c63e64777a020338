import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NATIVE_AFTER_CHARS, sha1Hex, sha1HexHere, sha256Hex, sha256HexHere } from '../../lib/runtime/digest.ts';

const reference = (algorithm: string, text: string) => createHash(algorithm).update(text).digest('hex');

/** Strings of every length around the 64-byte block and its 55/56-byte padding edge, then random ones, ASCII and not. */
function samples(): string[] {
  const out = ['', 'abc', 'lone \ud800 surrogate', 'orders:0:1:1,2,3;orders:1:2:2,3,1', 'héllo wörld', '漢字', '😀 emoji'];
  for (let n = 0; n <= 200; n++) out.push('x'.repeat(n), 'é'.repeat(n));
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 300; i++) {
    const len = next() % 400;
    let s = '';
    for (let j = 0; j < len; j++) s += String.fromCodePoint(next() % 5 === 0 ? 0x80 + (next() % 0x2000) : 0x20 + (next() % 0x5f));
    out.push(s);
  }
  return out;
}

describe('digests without node:crypto', () => {
  it('sha1HexHere is createHash("sha1") of the UTF-8 text', () => {
    for (const s of samples()) expect(sha1HexHere(s), JSON.stringify(s)).toBe(reference('sha1', s));
  });

  it('sha256HexHere is createHash("sha256") of the UTF-8 text', () => {
    for (const s of samples()) expect(sha256HexHere(s), JSON.stringify(s)).toBe(reference('sha256', s));
  });
});

describe('sha1Hex and sha256Hex', () => {
  it('give the same answers before and after node:crypto takes over (past NATIVE_AFTER_CHARS)', () => {
    for (const s of samples().slice(0, 50)) expect([sha1Hex(s), sha256Hex(s)]).toEqual([reference('sha1', s), reference('sha256', s)]);
    const long = 'orders:0:1:1,2,3;'.repeat(Math.ceil(NATIVE_AFTER_CHARS / 17) + 1);
    expect(sha1Hex(long)).toBe(reference('sha1', long));
    for (const s of samples().slice(0, 50)) {
      expect(sha1Hex(s)).toBe(reference('sha1', s));
      expect(sha256Hex(s)).toBe(reference('sha256', s));
    }
  });
});
