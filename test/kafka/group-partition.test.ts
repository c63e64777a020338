import { describe, expect, it } from 'vitest';
import { javaStringHashCode, kafkaAbs, offsetsPartitionFor } from '../../lib/kafka/group-partition.ts';

describe('javaStringHashCode', () => {
  it.each([
    ['', 0],
    ['a', 97],
    ['Hello', 69609650],
    ['hello world', 1794106052],
    // Negative results: 32-bit overflow must wrap like Java's int.
    ['consumer-1', -166239206],
    ['payments-consumer', -242238826],
    // The classic string whose hash is Integer.MIN_VALUE.
    ['polygenelubricants', -2147483648],
    // Outside the BMP: Java hashes the two UTF-16 surrogates, not the code point.
    ['\u{1F600}', 1772899],
  ])('%j → %i', (s, expected) => {
    expect(javaStringHashCode(s)).toBe(expected);
  });

  it('collides where Java collides', () => {
    expect(javaStringHashCode('Aa')).toBe(javaStringHashCode('BB'));
  });
});

describe('offsetsPartitionFor', () => {
  it('follows Utils.abs: Integer.MIN_VALUE maps to 0, not to a negative partition', () => {
    expect(kafkaAbs(-2147483648)).toBe(0);
    expect(offsetsPartitionFor('polygenelubricants', 50)).toBe(0);
    expect(offsetsPartitionFor('polygenelubricants', 7)).toBe(0);
  });

  it.each([
    ['my-consumer-group', 50, 13],
    ['consumer-1', 50, 6],
    ['payments-consumer', 50, 26],
    ['\u{1F600}', 50, 49],
    ['hello world', 3, 1794106052 % 3],
  ])('%j with %i partitions → %i', (g, n, expected) => {
    expect(offsetsPartitionFor(g, n)).toBe(expected);
  });

  it('rejects a non-positive partition count instead of returning NaN', () => {
    expect(() => offsetsPartitionFor('g', 0)).toThrow(/positive integer/);
  });
});
