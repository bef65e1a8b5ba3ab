#!/usr/bin/env node
// `npm run bench [name-filter]`: builds the apps (benchmarks that need a server start the
// built dist/ apps as child processes), then runs each test/bench/*.bench.ts with tsx, one
// after another (they share 2 cores; running them together would measure each other).
const { spawnSync } = require('node:child_process');
const { readdirSync } = require('node:fs');
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
  if (run(process.execPath, [require.resolve('tsx/cli'), path.join('test', 'bench', bench)]) !== 0) failed++;
}
process.exit(failed ? 1 : 0);
