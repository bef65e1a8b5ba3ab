/**
 * The sync client is Nest-free (issue 29): a team's node that uses NodeSync without Nest must not
 * load NestJS. Each entry is required in a fresh Node process (tsx compiles the TypeScript and
 * maps the tsconfig `paths`, as apps/cpctl/bin/cpctl.cjs does), and every module that process
 * resolves is recorded: Node's resolve hook (module.registerHooks) sees each `require` and each
 * `import`, ES modules required from CommonJS included, and Module._load sees each request.
 * The A2A server's entry (a2a/index.ts) and the pieces its package bundles with it are held to the
 * same rule (ADR 0224). The `@cp/common` barrel is the control: it loads Nest, so the probe can see Nest when it is there.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/** Runs in the child: records what is resolved, requires the entry, prints what it saw. */
const PROBE = `
const Module = require('node:module');
const path = require('node:path');
const [root, entry] = process.argv.slice(1);
const seen = new Set();
Module.registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r; } });
const load = Module._load;
Module._load = function (request) { seen.add('request:' + request); return load.apply(this, arguments); };
require(require.resolve('tsx/cjs/api', { paths: [root] })).register({ tsconfig: path.join(root, 'tsconfig.json') });
const loaded = require(entry.startsWith('@') ? entry : path.join(root, entry));
const all = [...seen, ...Object.keys(require.cache)];
process.stdout.write(JSON.stringify({ exports: Object.keys(loaded), modules: all }));`;

interface Loaded {
  exports: string[];
  modules: string[];
}

function requireInFreshProcess(entry: string): Loaded {
  try {
    const stdout = execFileSync(process.execPath, ['-e', PROBE, ROOT, entry], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return JSON.parse(stdout) as Loaded;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(
      `requiring ${entry} failed: ${stderr.split('\n').filter((l) => /Error/.test(l) && l.length < 300)[0] ?? stderr.slice(-300)}`,
    );
  }
}

const nestModules = (loaded: Loaded) =>
  loaded.modules.filter((m) => /[\\/]node_modules[\\/]@nestjs[\\/]/.test(m) || /^request:@nestjs\//.test(m));

describe('the sync client and the A2A server load no NestJS', () => {
  it.each([
    'libs/node-sdk/src/sync/index.ts',
    'libs/node-sdk/src/node-sync.ts',
    'libs/common/src/core.ts',
    // The A2A server's entry and what its package bundles beside it (ADR 0224).
    'libs/node-sdk/src/a2a/index.ts',
    'libs/node-sdk/src/tools/index.ts',
    'libs/node-sdk/src/usage/index.ts',
    'libs/node-sdk/src/routing/index.ts',
  ])(
    '%s loads without any module of @nestjs',
    (entry) => {
      const loaded = requireInFreshProcess(entry);
      expect(loaded.modules.length).toBeGreaterThan(50); // the probe saw the entry's dependencies
      expect(nestModules(loaded).slice(0, 5)).toEqual([]);
    },
    120_000,
  );

  it('the sync entry is the whole client: NodeSync and what builds it, with its Redis and JWKS dependencies', () => {
    const loaded = requireInFreshProcess('libs/node-sdk/src/sync/index.ts');
    expect(loaded.exports).toEqual(expect.arrayContaining(['NodeSync', 'nodeSyncHealthCheck', 'nodeSyncOptionsFromConfig', 'PinnedJwks']));
    expect(loaded.modules.some((m) => /[\\/]node_modules[\\/]ioredis[\\/]/.test(m))).toBe(true);
    expect(loaded.modules.some((m) => /[\\/]node_modules[\\/]jose[\\/]/.test(m))).toBe(true);
  }, 120_000);

  it('the probe sees Nest where it is loaded (the @cp/common barrel)', () => {
    const loaded = requireInFreshProcess('libs/common/src/index.ts');
    expect(nestModules(loaded).length).toBeGreaterThan(0);
  }, 120_000);
});
