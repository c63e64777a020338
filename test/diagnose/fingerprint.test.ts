import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../lib/diagnose/finding.ts';

// A finding's fingerprint groups repeats across runs and versions (alert threads,
// the audit's history): it must not change when the code under it does. The
// expected values are SHA-256 digests computed with Python's hashlib.
describe('finding fingerprints', () => {
  it('are the first 20 hex digits of SHA-256 over the kind and the sorted identity, as UTF-8', () => {
    expect(fingerprint('offline-partition', ['topic:orders', 'broker:1'])).toBe('a0ddd38475e6a92f2548');
    expect(fingerprint('offline-partition', ['broker:1', 'topic:orders'])).toBe('a0ddd38475e6a92f2548');
    expect(fingerprint('offline-partition', ['topic:wörld', 'broker:1'])).toBe('b015f2c5cc7f49240fe1');
  });
});
