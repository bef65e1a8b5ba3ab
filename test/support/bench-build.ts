/**
 * A benchmark's server processes run compiled JavaScript, as the node SDK packages do (esbuild
 * bundles, ADR 0224; ADR 0398), not through tsx: tsx compiles with esbuild's `keepNames`, which
 * wraps every function and class the code creates at run time in a `__name(fn, "name")` call (a
 * defineProperty). The SDK server measured beside the node runs its library as plain JavaScript
 * from node_modules, so a tsx-run node paid a cost the SDK did not.
 *
 * `benchScript(file, tree)` bundles one bench file (its child modes, the libs they import through
 * the tsconfig's `@cp/*` paths; third-party packages stay external, loaded as installed) into a
 * .cjs file under `node_modules/.cache` (where those packages resolve from), once per process.
 * BENCH_RUNTIME=tsx keeps the old way: the child runs the TypeScript file through tsx (its figures
 * are the ones before this change).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';

export type BenchRuntime = 'compiled' | 'tsx';

/** BENCH_RUNTIME, or the variable `name` (e.g. BENCH_BASE_RUNTIME: the base build's, which defaults to BENCH_RUNTIME). */
export function benchRuntime(name = 'BENCH_RUNTIME'): BenchRuntime {
  const runtime = process.env[name] ?? process.env.BENCH_RUNTIME ?? 'compiled';
  if (runtime !== 'compiled' && runtime !== 'tsx') throw new Error(`${name} must be "compiled" or "tsx", not ${JSON.stringify(runtime)}`);
  return runtime;
}

const built = new Map<string, string>();
const dirs: string[] = [];

/** Removes what this process built (also done when it exits). */
export function removeBenchBuilds(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  built.clear();
}
process.on('exit', removeBenchBuilds);

/** `file` (a bench's .ts, in `tree`, the repository's root or another checkout) bundled as CommonJS; its path. */
export async function benchScript(file: string, tree: string): Promise<string> {
  const known = built.get(file);
  if (known) return known;
  // Required here: only the parent process builds.
  const esbuild = require('esbuild') as typeof import('esbuild');
  const cache = join(tree, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'bench-build-'));
  dirs.push(dir);
  const outfile = join(dir, `${basename(file, '.ts')}.cjs`);
  await esbuild.build({
    entryPoints: [file],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node}`,
    packages: 'external',
    tsconfig: join(tree, 'tsconfig.json'),
    keepNames: false,
    sourcemap: false,
    logLevel: 'error',
  });
  built.set(file, outfile);
  return outfile;
}

/** The arguments that start `file` in a child node process, compiled or through tsx (`runtime`). */
export async function benchChildArgs(
  file: string,
  tree: string,
  nodeArgs: readonly string[],
  args: readonly string[],
  runtime: BenchRuntime = benchRuntime(),
): Promise<string[]> {
  if (runtime === 'tsx') return [...nodeArgs, '--import', 'tsx', file, ...args];
  return [...nodeArgs, await benchScript(file, tree), ...args];
}
