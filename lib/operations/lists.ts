// Lists in coded notices and how they are shown: a notice keeps up to
// STORED_NAMES names and the total; a renderer shows the first few and says
// "and N more", never cutting a name or a word. The thread gets the full
// stored list (renderers' `full` mode).

import { andMore, formatCount } from '../runtime/format.ts';

export interface NameList {
  names: string[];
  total: number;
}

/** Names kept in a stored notice (a plan must stay small); `total` counts them all. */
export const STORED_NAMES = 100;
/** Names shown in a line of the plan message before "and N more". */
export const SHOWN_NAMES = 5;

export function listOf(names: readonly string[], cap = STORED_NAMES): NameList {
  return { names: names.slice(0, cap), total: names.length };
}

/** "a, b, c and 12 more"; `shown` Infinity lists every stored name. */
export function namesText(list: NameList | readonly string[], shown = SHOWN_NAMES): string {
  const l = Array.isArray(list) ? { names: [...list], total: list.length } : (list as NameList);
  const visible = l.names.slice(0, shown);
  const more = l.total - visible.length;
  if (more <= 0) return visible.length > 1 ? `${visible.slice(0, -1).join(', ')} and ${visible.at(-1)}` : (visible[0] ?? '');
  return andMore(visible, shown, l.total);
}

/**
 * At most `max` items, and no more than fit in `maxChars` (joined with
 * newlines), then one "…and N more" line: whole lines only, never a cut.
 */
export function capped<T>(
  items: readonly T[],
  max: number,
  line: (t: T, i: number) => string,
  moreLine: (n: number) => string = (n) => `…and ${formatCount(n)} more`,
  maxChars = Infinity,
): string[] {
  const out: string[] = [];
  let used = 0;
  const reserve = moreLine(items.length).length + 1;
  for (let i = 0; i < items.length && out.length < max; i++) {
    const l = line(items[i]!, i);
    const budget = i === items.length - 1 ? maxChars : maxChars - reserve;
    if (used + l.length + 1 > budget && out.length > 0) break;
    out.push(l);
    used += l.length + 1;
  }
  if (items.length > out.length) out.push(moreLine(items.length - out.length));
  return out;
}

/** Lines packed into pages of at most `maxChars` each (whole lines; a single longer line is a page of its own). */
export function pages(lines: readonly string[], maxChars: number): string[][] {
  const out: string[][] = [];
  let page: string[] = [];
  let used = 0;
  for (const l of lines) {
    if (page.length && used + l.length + 1 > maxChars) {
      out.push(page);
      page = [];
      used = 0;
    }
    page.push(l);
    used += l.length + 1;
  }
  if (page.length) out.push(page);
  return out;
}
