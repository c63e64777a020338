// Numbers and lists as users read them, one way everywhere.

/** 1,234 (en-US grouping, whatever the host's locale). */
export const formatCount = (n: number): string => n.toLocaleString('en-US');

/** "512 B", "1.5 KiB", "6.7 MiB", "5.0 GiB", "1.2 TiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/**
 * The first `max` of `items`, comma-separated, then " and N more" when some
 * are left out: "a, b, c and 12 more". `total` counts items beyond the array
 * (a stored list keeps only its first names).
 */
export function andMore(items: readonly string[], max: number, total = items.length): string {
  const shown = items.slice(0, max);
  const more = total - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${formatCount(more)} more` : shown.join(', ');
}

/** An elapsed time: "310 ms" below ten seconds (where the milliseconds matter), "12.4 s" below two minutes, then minutes. */
export function formatElapsed(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}
