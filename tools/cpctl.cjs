#!/usr/bin/env node
// `npx cpctl …`: runs the built CLI (dist/, after `npm run build`) when there is one, else the
// TypeScript source through tsx, so the command works straight after `npm ci`.
// CPCTL_FROM_SOURCE=1 forces the source (the e2e suites use it, so they test the working tree).
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const built = path.join(root, 'dist/apps/cpctl/src/main.js');

if (process.env.CPCTL_FROM_SOURCE !== '1' && fs.existsSync(built)) {
  require(built);
} else {
  let tsx;
  try {
    tsx = require('tsx/cjs/api');
  } catch {
    process.stderr.write('cpctl: not built (run `npm run build`) and tsx is not installed (run `npm ci`)\n');
    process.exit(10);
  }
  // The tsconfig's `paths` resolve the @cp/* libraries from source.
  tsx.register({ tsconfig: path.join(root, 'tsconfig.json') });
  require(path.join(root, 'apps/cpctl/src/main.ts'));
}
