import { describe, expect, it } from 'vitest';
import { sha1Hex, sha256Hex } from '../../lib/runtime/digest.ts';

// FIPS 180-2's example messages, and UTF-8 text (the bytes hashed are the string's UTF-8 encoding).
describe('sha1Hex and sha256Hex', () => {
  it('match the published digests of the standard examples', () => {
    expect(sha1Hex('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha1Hex('')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    const twoBlocks = 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq';
    expect(sha1Hex(twoBlocks)).toBe('84983e441c3bd26ebaae4aa1f95129e5e54670f1');
    expect(sha256Hex(twoBlocks)).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('hash text as its UTF-8 bytes (digests from Python hashlib)', () => {
    expect(sha1Hex('héllo wörld')).toBe('24e9f5c07847ff8a2a9fa77456655792f5bc7f9f');
    expect(sha256Hex('héllo wörld')).toBe('a1003f7d04a4115711d0b48a2eaf1359ce565d2d2a6fd65098dfcffadeeef59f');
    expect(sha1Hex('漢字')).toBe('50008262c76205f015248f124c87b9fe463ead9f');
    expect(sha256Hex('漢字')).toBe('c6d297713595d2f5127b438aa2ec2cb3049bb096cff7fe128f620a609c32a00f');
  });
});
