#!/usr/bin/env node
// `prisma generate` wants a schema-engine binary on disk before it starts, although it never
// runs it; our machines cannot download one. PRISMA_SCHEMA_ENGINE_BINARY is Prisma's documented
// variable for such machines: point it at any existing file (node itself) when unset.
const { spawnSync } = require('node:child_process');
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
const prismaCli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', 'prisma/schema.prisma'], {
  stdio: 'inherit',
  env,
  cwd: require('node:path').join(__dirname, '..'),
});
process.exit(result.status ?? 1);
