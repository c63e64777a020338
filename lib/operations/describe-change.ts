// The precondition check's words for what changed between the plan's
// fingerprinted state and the live one (the STALE notice).

export function describeChange(before: unknown, after: unknown): string {
  if (typeof before !== 'object' || before === null || typeof after !== 'object' || after === null) return 'state differs';
  const changed: string[] = [];
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = JSON.stringify(a[key]);
    const y = JSON.stringify(b[key]);
    if (x !== y && key !== 'summarized') changed.push(key === 'partitions' ? 'partition assignment' : key === 'measured' ? 'measured replica ends' : `${key} ${short(x)} → ${short(y)}`);
  }
  return changed.join(', ') || 'state differs';
}

function short(s: string | undefined): string {
  if (s === undefined) return 'absent';
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}
