#!/usr/bin/env node
// The `cpctl` command (this workspace package's `bin`: npm links it into node_modules/.bin on
// `npm ci`, and `npm install -g ./apps/cpctl` puts it on the PATH). It runs the built CLI
// (dist/, after `npm run build`) when there is one, else the TypeScript source through tsx (a
// devDependency), so the command works straight after `npm ci` on a fresh clone.
// CPCTL_FROM_SOURCE=1 forces the source (the e2e suites use it, so they test the working tree).
const fs = require('node:fs');
const path = require('node:path');

// realpath: a global install links to this folder; the repository root is three levels up.
const root = path.join(fs.realpathSync(__dirname), '..', '..', '..');
const built = path.join(root, 'dist/apps/cpctl/src/main.js');

if (process.env.CPCTL_FROM_SOURCE !== '1' && fs.existsSync(built)) {
  require(built);
} else {
  let tsx;
  try {
    tsx = require(require.resolve('tsx/cjs/api', { paths: [root] }));
  } catch {
    process.stderr.write('cpctl: not built (run `npm run build`) and tsx is not installed (run `npm ci`)\n');
    process.exit(10);
  }
  tsx.register({ tsconfig: path.join(root, 'tsconfig.json') });
  // The tsconfig's `paths` map the @cp/* libraries to their source. tsx applies them only when
  // the working directory is inside the checkout, so map them here (a global cpctl runs anywhere).
  const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
  const Module = require('node:module');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    const target = compilerOptions.paths[request];
    return resolve.call(this, target ? path.join(root, target[0]) : request, ...rest);
  };
  require(path.join(root, 'apps/cpctl/src/main.ts'));
}
