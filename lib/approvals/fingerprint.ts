import { createHash } from 'node:crypto';

// Canonical JSON: object keys sorted at every level, so the same state always
// hashes the same whatever order the Admin API returned fields in.
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** sha256 of the canonical JSON of `value`. */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
