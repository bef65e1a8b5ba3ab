/**
 * Runs one of our apps from its TypeScript source in a child process, as `nest build` would
 * compile it: `node test/support/ts-app-runner.cjs apps/<app>/src/main.ts`. tsx cannot (esbuild
 * emits no decorator metadata, which Nest's injection needs); this transpiles each file with
 * TypeScript itself (emitDecoratorMetadata, CommonJS, as ts-jest does in the suites) and resolves
 * the `@cp/*` aliases from tsconfig.json. Test-only (test/support, never in dist).
 */
const Module = require('node:module');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..', '..');
const { compilerOptions } = JSON.parse(readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
const aliases = Object.fromEntries(Object.entries(compilerOptions.paths).map(([alias, [target]]) => [alias, path.join(root, target)]));
const options = {
  ...compilerOptions,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  target: ts.ScriptTarget.ES2023,
  sourceMap: false,
  inlineSourceMap: true,
  ignoreDeprecations: '6.0',
  paths: undefined,
  lib: undefined,
  types: undefined,
};
delete options.paths;

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (aliases[request]) return aliases[request];
  // Relative imports written with .js (the generated Prisma client) resolve to the .ts sources.
  if (request.startsWith('.') && request.endsWith('.js') && parent?.filename) {
    const ts = path.resolve(path.dirname(parent.filename), request.slice(0, -3) + '.ts');
    if (!existsSync(path.resolve(path.dirname(parent.filename), request)) && existsSync(ts)) return ts;
  }
  return resolve.call(this, request, parent, ...rest);
};

// Transpiled files are cached by content, so the second replica of an app starts without recompiling.
const cacheDir = path.join(root, 'node_modules', '.cache', 'ts-app-runner');
mkdirSync(cacheDir, { recursive: true });
const compilerKey = createHash('sha1').update(ts.version).update(JSON.stringify(options)).digest('hex');

Module._extensions['.ts'] = function (module, filename) {
  const source = readFileSync(filename, 'utf8');
  const cached = path.join(cacheDir, `${createHash('sha1').update(compilerKey).update(filename).update(source).digest('hex')}.js`);
  let output;
  try {
    output = readFileSync(cached, 'utf8');
  } catch {
    output = ts.transpileModule(source, { compilerOptions: options, fileName: filename }).outputText;
    const tmp = `${cached}.${process.pid}`;
    writeFileSync(tmp, output);
    renameSync(tmp, cached);
  }
  module._compile(output, filename);
};

const target = process.argv[2];
if (!target) throw new Error('usage: ts-app-runner.cjs <entry.ts>');
process.argv.splice(2, 1);
require(path.resolve(root, target));
