// The structure rules a newcomer relies on, checked on every run: no import
// circle anywhere in lib/ (a folder reads top-down), no file over 400 lines
// (functions over 80 lines are eslint's max-lines-per-function), and no two
// files whose names differ only by a suffix (a table's index.ts aside).
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const LIB = join(ROOT, 'lib');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path) : [path];
  });
}

const isSource = (f: string) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts');

/** Each lib/ source file's imports of other lib/ files (static, dynamic and type-only alike). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of filesUnder(LIB).filter(isSource)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name))
      .filter((target) => target.startsWith(LIB));
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan): each is an import circle. */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) !== order.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(relative(ROOT, w));
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!order.has(v)) visit(v);
  return found;
}

describe('lib/ structure', () => {
  it('has no import circle', () => {
    expect(circles(importGraph())).toEqual([]);
  });

  it('has no file over 400 lines', () => {
    const long = filesUnder(LIB)
      .filter((f) => !f.endsWith('.test.ts'))
      .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > 400);
    expect(long).toEqual([]);
  });

  it('has no two files in one folder whose names differ by a suffix (a name says one thing)', () => {
    const byFolder = new Map<string, string[]>();
    for (const file of filesUnder(LIB).filter(isSource)) {
      const names = byFolder.get(dirname(file)) ?? [];
      names.push(basename(file, '.ts'));
      byFolder.set(dirname(file), names);
    }
    const pairs: string[] = [];
    for (const [folder, names] of byFolder) {
      for (const a of names.filter((n) => n !== 'index')) {
        for (const b of names) if (b.startsWith(`${a}-`)) pairs.push(`${relative(ROOT, folder)}: ${a}.ts and ${b}.ts`);
      }
    }
    expect(pairs).toEqual([]);
  });

  it('finds a circle when there is one (the check itself works)', () => {
    const a = join(LIB, 'a.ts');
    const b = join(LIB, 'b.ts');
    expect(circles(new Map([[a, [b]], [b, [a]]]))).toEqual([['lib/a.ts', 'lib/b.ts']]);
  });
});
