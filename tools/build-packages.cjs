/**
 * `npm run build:packages`: builds the installable node SDK packages in packages/* (ADR 0224).
 * Each entry of a package's `exports` ("." is src/index.ts, "./nest" is src/nest.ts) is bundled
 * by esbuild from libs/ sources (the `@cp/*` aliases resolved through tsconfig.json) into
 * dist/<entry>.cjs, with every third-party package left external; its types are one bundled
 * dist/<entry>.d.ts (dts-bundle-generator). The build fails when an entry needs a package its
 * package.json does not declare, declares one it does not need, or declares a range other than
 * the root package.json's: the packages install what they run, at the versions the repo tests.
 * Usage: node tools/build-packages.cjs [package folder name ...] (default: every package).
 */
const { builtinModules } = require('node:module');
const { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const esbuild = require('esbuild');
const { generateDtsBundle } = require('dts-bundle-generator');

const ROOT = join(__dirname, '..');
const PACKAGES = join(ROOT, 'packages');
const TSCONFIG = join(ROOT, 'tsconfig.json');
const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const rootRanges = { ...root.devDependencies, ...root.dependencies };
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageName = (path) =>
  path
    .split('/')
    .slice(0, path.startsWith('@') ? 2 : 1)
    .join('/');
const entryFile = (key) => (key === '.' ? 'index' : key.slice(2));

/**
 * Entries other than the main one import the main one as `./index`: kept external (`./index.cjs`
 * beside them in dist) so the package has one copy of each class (Nest injects by class).
 */
const mainEntryExternal = {
  name: 'main-entry-external',
  setup(build) {
    build.onResolve({ filter: /^\.\/index$/ }, (args) =>
      /[\\/]packages[\\/][^\\/]+[\\/]src[\\/][^\\/]+\.ts$/.test(args.importer) && !args.importer.endsWith('index.ts')
        ? { path: './index.cjs', external: true }
        : undefined,
    );
  },
};

async function buildPackage(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const entries = Object.keys(manifest.exports)
    .filter((k) => k !== './package.json')
    .map(entryFile);
  const dist = join(dir, 'dist');
  rmSync(dist, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: Object.fromEntries(entries.map((e) => [e, join(dir, 'src', `${e}.ts`)])),
    outdir: dist,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    // CommonJS: some sources use `import x = require()`; Node 24 loads the ESM-only dependencies
    // (jose) with require(), and esbuild annotates the exports so `import { … }` works from ESM too.
    format: 'cjs',
    platform: 'node',
    target: 'node24',
    tsconfig: TSCONFIG,
    packages: 'external',
    plugins: [mainEntryExternal],
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
  const used = new Set();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const i of output.imports) if (i.external && !builtins.has(i.path) && !i.path.startsWith('.')) used.add(packageName(i.path));
  }
  const problems = [];
  for (const name of used)
    if (!declared[name]) problems.push(`needs "${name}" (root range ${rootRanges[name] ?? 'none'}): declare it in dependencies`);
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (!used.has(name)) problems.push(`declares "${name}" but no entry imports it`);
  }
  for (const [name, range] of Object.entries(declared)) {
    if (rootRanges[name] && rootRanges[name] !== range)
      problems.push(`"${name}": ${range} differs from the root package.json's ${rootRanges[name]}`);
  }
  if (problems.length) throw new Error(`${manifest.name}:\n  ${problems.join('\n  ')}`);
  console.log(`${manifest.name}: ${entries.map((e) => `dist/${e}.cjs`).join(', ')}; runtime packages: ${[...used].sort().join(', ')}`);
  return entries.map((e) => ({ source: join(dir, 'src', `${e}.ts`), out: join(dist, `${e}.d.ts`) }));
}

/**
 * Types: one declaration bundle per entry, our own libs inlined, third-party types imported. One
 * call for every entry of every package: it type-checks the program once (the slow part).
 */
function bundleTypes(entries) {
  const bundles = generateDtsBundle(
    entries.map((e) => ({ filePath: e.source, output: { noBanner: true, exportReferencedTypes: false } })),
    { preferredConfigPath: TSCONFIG },
  );
  entries.forEach((e, i) => writeFileSync(e.out, bundles[i]));
  console.log(`types: ${entries.map((e) => relative(ROOT, e.out)).join(', ')}`);
}

async function main() {
  const only = process.argv.slice(2);
  const dirs = readdirSync(PACKAGES, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(PACKAGES, d.name, 'package.json')) && (!only.length || only.includes(d.name)))
    .map((d) => join(PACKAGES, d.name));
  if (!dirs.length) throw new Error(`no package under ${relative(ROOT, PACKAGES)} matches ${only.join(', ')}`);
  const typed = [];
  for (const dir of dirs) typed.push(...(await buildPackage(dir)));
  bundleTypes(typed);
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
