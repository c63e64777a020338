// SHA-1 and SHA-256 of a string's UTF-8 bytes, as hex: what node:crypto's
// createHash(...).update(text).digest('hex') gives, without loading
// node:crypto. A diagnosis of a small cluster hashes a few short strings
// (finding fingerprints, each topic's leader digest), and node:crypto took
// about 2 ms of every CLI start to load, on the path that decides how soon a
// diagnosis is printed. Hashing here is slower than node:crypto's, about
// 10 ms a MB: once a process has hashed NATIVE_AFTER_CHARS, node:crypto does
// the rest (a 200,000-partition snapshot's digests are 3 MB).
// test/runtime/digest.test.ts checks both ways against node:crypto.

/** What this process hashes itself before node:crypto (loaded then) takes over. */
export const NATIVE_AFTER_CHARS = 256 * 1024;
let hashedChars = 0;
let native: typeof import('node:crypto') | undefined;

/** node:crypto once enough was hashed here (and where Node has process.getBuiltinModule, 22.3+); else undefined. */
function nativeCrypto(text: string): typeof import('node:crypto') | undefined {
  if (native) return native;
  hashedChars += text.length;
  if (hashedChars <= NATIVE_AFTER_CHARS) return undefined;
  native = process.getBuiltinModule?.('node:crypto');
  return native;
}

const encoder = new TextEncoder();
/** Reused between calls (a digest is computed in one go, never re-entered): a fleet's thousands of topic digests allocate nothing each. */
let padded = new Uint32Array(64);

/** The message padded to whole 64-byte blocks, as big-endian 32-bit words (FIPS 180-4 §5.1.1); returns the word count. */
function pad(text: string): number {
  // ASCII (nearly every identity and digest input) straight from the string; anything else through UTF-8.
  let ascii = true;
  for (let i = 0; i < text.length && ascii; i++) ascii = text.charCodeAt(i) < 0x80;
  const bytes = ascii ? null : encoder.encode(text);
  const length = bytes ? bytes.length : text.length;
  const count = (((length + 8) >> 6) + 1) * 16;
  if (padded.length < count) padded = new Uint32Array(count * 2);
  padded.fill(0, 0, count);
  for (let i = 0; i < length; i++) padded[i >> 2]! |= (bytes ? bytes[i]! : text.charCodeAt(i)) << (24 - (i & 3) * 8);
  padded[length >> 2]! |= 0x80 << (24 - (length & 3) * 8);
  const bits = length * 8;
  padded[count - 2] = Math.floor(bits / 2 ** 32);
  padded[count - 1] = bits >>> 0;
  return count;
}

const hex = (state: Int32Array): string => {
  let out = '';
  for (const h of state) out += (h >>> 0).toString(16).padStart(8, '0');
  return out;
};
const rotl = (x: number, n: number): number => (x << n) | (x >>> (32 - n));
const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));
/** A block's working variables added into the hash state (wrapping, as Int32Array stores). */
const addInto = (state: Int32Array, words: readonly number[]): void => words.forEach((x, i) => (state[i]! += x));
/** The message schedule, reused: SHA-1 needs 80 words, SHA-256 64. */
const W80 = new Int32Array(80);

export function sha1Hex(text: string): string {
  return nativeCrypto(text)?.createHash('sha1').update(text).digest('hex') ?? sha1HexHere(text);
}

export function sha256Hex(text: string): string {
  return nativeCrypto(text)?.createHash('sha256').update(text).digest('hex') ?? sha256HexHere(text);
}

/** SHA-1 computed here (FIPS 180-4 §6.1). */
export function sha1HexHere(text: string): string {
  const count = pad(text);
  const h = new Int32Array([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]);
  const w = W80;
  for (let block = 0; block < count; block += 16) {
    for (let t = 0; t < 16; t++) w[t] = padded[block + t]!;
    for (let t = 16; t < 80; t++) w[t] = rotl(w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!, 1);
    let [a, b, c, d, e] = h as unknown as [number, number, number, number, number];
    // The four rounds of twenty, each with its own function and constant.
    for (let t = 0; t < 80; t++) {
      let f: number;
      if (t < 20) f = ((b & c) | (~b & d)) + 0x5a827999;
      else if (t < 40) f = (b ^ c ^ d) + 0x6ed9eba1;
      else if (t < 60) f = ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc;
      else f = (b ^ c ^ d) + 0xca62c1d6;
      const next = (rotl(a, 5) + f + e + w[t]!) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = next;
    }
    addInto(h, [a, b, c, d, e]);
  }
  return hex(h);
}

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4 §4.2.2). */
const K256 = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 computed here (FIPS 180-4 §6.2). */
export function sha256HexHere(text: string): string {
  const count = pad(text);
  const h = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = W80;
  for (let block = 0; block < count; block += 16) {
    for (let t = 0; t < 16; t++) w[t] = padded[block + t]!;
    for (let t = 16; t < 64; t++) {
      const s0 = rotr(w[t - 15]!, 7) ^ rotr(w[t - 15]!, 18) ^ (w[t - 15]! >>> 3);
      const s1 = rotr(w[t - 2]!, 17) ^ rotr(w[t - 2]!, 19) ^ (w[t - 2]! >>> 10);
      w[t] = (w[t - 16]! + s0 + w[t - 7]! + s1) | 0;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as [number, number, number, number, number, number, number, number];
    for (let t = 0; t < 64; t++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K256[t]! + w[t]!) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    addInto(h, [a, b, c, d, e, f, g, hh]);
  }
  return hex(h);
}
