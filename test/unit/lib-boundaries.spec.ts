/**
 * The boundaries between libs and apps (docs/architecture.md, "Boundaries") are lint rules: this
 * lints small snippets as if they lived in each part, through the project's own eslint.config.mjs,
 * and checks each forbidden import is refused and each allowed one is not.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '../..');

interface Case {
  file: string;
  from: string;
  refused: boolean;
}

const cases: Case[] = [
  { file: 'libs/capabilities/src/x.ts', from: '@cp/node-protocol', refused: true },
  { file: 'libs/capabilities/src/x.ts', from: '@cp/common', refused: true },
  { file: 'libs/capabilities/src/x.ts', from: 'fastify', refused: true },
  { file: 'libs/node-protocol/src/x.ts', from: 'zod', refused: false },
  { file: 'libs/node-protocol/src/x.ts', from: 'jose', refused: false },
  { file: 'libs/node-protocol/src/x.ts', from: 'canonicalize', refused: false },
  { file: 'libs/node-protocol/src/x.ts', from: 'jsonwebtoken', refused: true },
  { file: 'libs/node-protocol/src/x.ts', from: '@cp/capabilities', refused: false },
  { file: 'libs/node-protocol/src/x.ts', from: './paths', refused: false },
  { file: 'libs/node-protocol/src/x.ts', from: '@cp/common', refused: true },
  { file: 'libs/node-protocol/src/x.ts', from: 'ioredis', refused: true },
  { file: 'libs/node-protocol/src/x.ts', from: '@cp/node-sdk', refused: true },
  { file: 'libs/sync/src/x.ts', from: '@cp/node-sdk', refused: true },
  { file: 'libs/sync/src/x.ts', from: '@cp/node-protocol', refused: false },
  { file: 'apps/control-plane/src/x.ts', from: '@cp/node-sdk', refused: true },
  { file: 'apps/control-plane/src/x.ts', from: '@cp/node-protocol', refused: false },
  { file: 'apps/worker/src/x.ts', from: '@cp/node-sdk', refused: true },
  { file: 'libs/node-sdk/src/x.ts', from: '@cp/db', refused: true },
  { file: 'libs/node-sdk/src/x.ts', from: '@cp/sync', refused: true },
  { file: 'libs/node-sdk/src/x.ts', from: '../../sync/src/bundle-cache', refused: true },
  { file: 'libs/node-sdk/src/x.ts', from: '@cp/node-protocol', refused: false },
  // The A2A server and the sync client of the node SDK meet only through ServedBundle (issue 29).
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '../sync/node-sync', refused: true },
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '../sync', refused: true },
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '../node-sync', refused: true },
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '../node-sync-config', refused: true },
  { file: 'libs/node-sdk/src/a2a/push/x.ts', from: '../../sync/pinned-jwks', refused: true },
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '..', refused: true },
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '@cp/node-sdk', refused: true },
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '../active-bundle', refused: false },
  { file: 'libs/node-sdk/src/a2a/x.ts', from: './task-store', refused: false },
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '@cp/db', refused: true },
  { file: 'libs/node-sdk/src/sync/x.ts', from: '../a2a', refused: true },
  { file: 'libs/node-sdk/src/sync/x.ts', from: '../a2a/served-bundle', refused: true },
  { file: 'libs/node-sdk/src/sync/x.ts', from: '../index', refused: true },
  { file: 'libs/node-sdk/src/sync/x.ts', from: '@cp/node-sdk', refused: true },
  { file: 'libs/node-sdk/src/sync/x.ts', from: '../active-bundle', refused: false },
  { file: 'libs/node-sdk/src/sync/x.ts', from: './node-api', refused: false },
  { file: 'libs/node-sdk/src/sync/x.ts', from: '@cp/db', refused: true },
  { file: 'libs/node-sdk/src/node-sync.ts', from: './a2a', refused: true },
  { file: 'libs/node-sdk/src/node-sync.ts', from: './sync/node-sync', refused: false },
  // The sync client is Nest-free: the Nest-free entry of libs/common, never its barrel or Nest itself.
  { file: 'libs/node-sdk/src/sync/x.ts', from: '@cp/common/core', refused: false },
  { file: 'libs/node-sdk/src/sync/x.ts', from: '@cp/common', refused: true },
  { file: 'libs/node-sdk/src/sync/x.ts', from: '@nestjs/common', refused: true },
  { file: 'libs/node-sdk/src/x.ts', from: '@cp/common/core', refused: false },
  // So is the A2A server's product code (its package entry, ADR 0224); its specs may use the barrel.
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '@cp/common', refused: true },
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '@nestjs/common', refused: true },
  { file: 'libs/node-sdk/src/a2a/x.ts', from: '@cp/common/core', refused: false },
  { file: 'libs/node-sdk/src/tools/x.ts', from: '@cp/common', refused: true },
  { file: 'libs/common/src/x.ts', from: '@cp/db', refused: true },
  { file: 'apps/agent-node/src/x.ts', from: '@cp/db', refused: true },
  { file: 'apps/agent-node/src/x.ts', from: '@cp/node-sdk', refused: false },
  { file: 'apps/control-plane/src/x.ts', from: '@cp/db/testing', refused: true },
  { file: 'apps/console/src/x.ts', from: '@cp/capabilities', refused: true },
  { file: 'apps/console/src/x.ts', from: '@cp/auth', refused: true },
  { file: 'apps/console/src/x.ts', from: 'graphql-request', refused: false },
];

/**
 * Type-aware lint only parses files its TypeScript project knows, so each snippet is linted as the
 * text of a real file of the same folder (the boundary rules match on the folder).
 */
function realFileBeside(file: string): string {
  if (existsSync(join(ROOT, file))) return file; // a rule that names files (node-sync*.ts), not only folders
  const dir = dirname(file);
  const name = readdirSync(join(ROOT, dir)).find((f) => f.endsWith('.ts') && !f.includes('spec'));
  if (!name) throw new Error(`no TypeScript file in ${dir} to lint a snippet as`);
  return join(dir, name);
}

/** One eslint process for every case: the ESLint API over the project's config, one lintText per snippet. */
function lint(all: Case[]): boolean[] {
  const script = `
    import { ESLint } from 'eslint';
    const cases = JSON.parse(process.argv[1]);
    const eslint = new ESLint({ cwd: ${JSON.stringify(ROOT)} });
    const out = [];
    for (const c of cases) {
      const [result] = await eslint.lintText(\`import * as m from '\${c.from}';\\nexport const used = m;\\n\`, { filePath: c.file });
      const fatal = result.messages.find((m) => m.fatal);
      if (fatal) throw new Error(c.file + ': ' + fatal.message);
      out.push(result.messages.some((m) => m.ruleId === 'no-restricted-imports'));
    }
    console.log(JSON.stringify(out));`;
  const asReal = all.map((c) => ({ ...c, file: realFileBeside(c.file) }));
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(asReal)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as boolean[];
}

describe('lib boundaries are enforced by lint', () => {
  let refused: boolean[];
  beforeAll(() => {
    refused = lint(cases);
  }, 120_000);

  it.each(cases.map((c, i) => [c.file, c.from, c.refused, i] as const))('%s importing %s: refused = %s', (_file, _from, expected, i) => {
    expect(refused[i]).toBe(expected);
  });
});
