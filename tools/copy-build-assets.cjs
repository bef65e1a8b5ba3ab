#!/usr/bin/env node
// After `nest build`: the files the compiled apps read at run time that tsc does not emit. The
// migrate step (dist/libs/db/src/migrate.cli.js) reads its SQL from dist/prisma/migrations, so
// dist/ is all a production image needs besides its production node_modules.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const from = path.join(root, 'prisma', 'migrations');
const to = path.join(root, 'dist', 'prisma', 'migrations');
fs.rmSync(to, { recursive: true, force: true });
fs.cpSync(from, to, { recursive: true, filter: (source) => fs.statSync(source).isDirectory() || source.endsWith('.sql') });
