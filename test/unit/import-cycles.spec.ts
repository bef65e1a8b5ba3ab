/**
 * No import cycles in apps/ and libs/ (issue 29), type-only imports included. The lint rule
 * (import-x/no-cycle) catches the runtime cycles, where load order decides whether a decorator
 * sees a class or `undefined`; it skips `import type` by design. A type-only cycle is the same
 * tangle of ownership erased at run time, so this walks every import, type or not, and lists the
 * strongly connected components of the graph: there must be none.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '../..');
const { compilerOptions } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as {
  compilerOptions: { paths: Record<string, string[]> };
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'gql') return [];
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** A specifier to a file of ours, or null (a package). */
function resolveImport(from: string, specifier: string): string | null {
  const alias = compilerOptions.paths[specifier]?.[0];
  const base = alias ? join(ROOT, alias) : specifier.startsWith('.') ? resolve(dirname(from), specifier) : null;
  if (!base) return null;
  const stem = base.replace(/\.js$/, '');
  for (const candidate of [stem, `${stem}.ts`, join(stem, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.map((f) => relative(ROOT, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import cycles', () => {
  it('apps/ and libs/ have none, counting type-only imports', () => {
    const graph = new Map<string, string[]>();
    for (const file of [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))]) {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      graph.set(
        file,
        importedFiles.map((i) => resolveImport(file, i.fileName)).filter((f): f is string => f !== null),
      );
    }
    expect(graph.size).toBeGreaterThan(300);
    expect(cycles(graph)).toEqual([]);
  });

  it('the walk sees a type-only cycle (the check can fail)', () => {
    const a = join(ROOT, 'a.ts');
    const b = join(ROOT, 'b.ts');
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
    expect(ts.preProcessFile(`import type { X } from './b';`, true, true).importedFiles.map((i) => i.fileName)).toEqual(['./b']);
  });
});
