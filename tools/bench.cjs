#!/usr/bin/env node
// `npm run bench [name-filter]`: builds the apps (benchmarks that need a server start the
// built dist/ apps as child processes), then runs each test/bench/*.bench.ts with tsx, one
// after another (they share 2 cores; running them together would measure each other).
const { spawnSync } = require('node:child_process');
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const filter = process.argv[2];
const benches = readdirSync(path.join(root, 'test', 'bench'))
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort();
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit' }).status;

if (run('npm', ['run', 'build', '--silent']) !== 0) process.exit(1);
let failed = 0;
for (const bench of benches) {
  process.stdout.write(`\n== ${bench}\n`);
  // A bench that boots Nest modules in its own process needs decorator metadata, which tsx does
  // not emit: it says so with this marker and runs through the TypeScript require hook instead.
  const file = path.join('test', 'bench', bench);
  const runner = readFileSync(path.join(root, file), 'utf8').includes('bench-runner: ts-app-runner')
    ? path.join('test', 'support', 'ts-app-runner.cjs')
    : require.resolve('tsx/cli');
  if (run(process.execPath, [runner, file]) !== 0) failed++;
}
process.exit(failed ? 1 : 0);
