/**
 * The production image, without Docker (our machines have no engine): builds the Dockerfile's
 * stages by running its own instructions (test/support/container-image.ts): the build stage's
 * `npm ci` and `npm run build`, then the runtime stage's fresh `npm ci --omit=dev` with the built
 * dist/ copied in. Then runs docker-compose.yml's one-off jobs and apps from that filesystem
 * against the real PostgreSQL and Redis (own database, own key prefix), with compose's
 * environment and health checks, the compose network's names mapped to loopback.
 * Slow by nature (two installs and a build): 6.5-7.5 minutes measured on 2 busy cores.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { generateKeyRingEntry, mintNodeToken } from '@cp/auth';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { buildContext, dockerignoreMatcher, interpolate, parseDockerfile, runStage, type StageResult } from '../support/container-image';

const REPO = join(__dirname, '..', '..');
const dockerfile = parseDockerfile(readFileSync(join(REPO, 'Dockerfile'), 'utf8'));
const compose = YAML.parse(readFileSync(join(REPO, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const packageJson = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

interface ComposeService {
  image?: string;
  build?: { context: string; target: string };
  command?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
}

const APPS = ['control-plane', 'worker', 'agent-node'] as const;
const JOBS = ['migrate', 'seed'] as const;
const SECRET_VARIABLES = ['JWT_SECRET', 'POSTGRES_PASSWORD', 'NODE_TOKEN', 'SIGNING_KEYS'];

describe('the Dockerfile and docker-compose.yml (read)', () => {
  const stage = (name: string) => dockerfile.stages.find((s) => s.name === name)!;
  const runs = (name: string) =>
    stage(name)
      .instructions.filter((i) => i.keyword === 'RUN')
      .map((i) => i.args);

  it('uses only instructions the reproduction runs, in a build and a runtime stage on Node 24', () => {
    expect(dockerfile.unsupported).toEqual([]);
    expect(dockerfile.stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    for (const { image } of dockerfile.stages) expect(image).toMatch(/^node:24-bookworm-slim$/);
    // The image's Node line is the one package.json's engines names.
    expect(packageJson.engines.node).toMatch(/^\^24\./);
  });

  it('builds with every dependency and runs with production dependencies only, as a non-root user', () => {
    expect(runs('build')).toEqual(['npm ci --no-audit --no-fund', 'npm run build']);
    expect(runs('runtime')[0]).toBe('npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund');
    const runtime = stage('runtime').instructions;
    expect(runtime.find((i) => i.keyword === 'ENV')?.args).toBe('NODE_ENV=production');
    const user = runtime.filter((i) => i.keyword === 'USER').at(-1);
    expect(user?.args).toBe('node');
    // Nothing after USER runs as root, and the copies from the build stage are dist/ only.
    expect(runtime.slice(runtime.indexOf(user!) + 1).map((i) => i.keyword)).toEqual(['EXPOSE', 'CMD']);
    expect(runtime.filter((i) => i.flags.from).map((i) => i.args)).toEqual(['/app/dist dist']);
  });

  it('keeps development files out of the build context', () => {
    const ignore = dockerignoreMatcher(readFileSync(join(REPO, '.dockerignore'), 'utf8'));
    expect(ignore.patterns.filter((p) => p.startsWith('!'))).toEqual([]);
    for (const path of [
      '.git/config',
      'node_modules/x/index.js',
      'dist/apps/x.js',
      'test/e2e/a.e2e-spec.ts',
      'libs/db/src/testing/index.ts',
      'libs/db/src/migrate.spec.ts',
      '.env',
    ])
      expect([path, ignore.matches(path)]).toEqual([path, true]);
    for (const path of [
      'package.json',
      'libs/db/src/migrate.ts',
      'prisma/migrations/20261130000000_init/migration.sql',
      'tools/prisma-generate.cjs',
    ])
      expect([path, ignore.matches(path)]).toEqual([path, false]);
  });

  it('runs the one image in production mode: migrations once before the apps, health checks on /readyz', () => {
    for (const name of [...APPS, ...JOBS]) {
      const service = compose.services[name];
      expect([name, service.build?.target, service.environment?.NODE_ENV]).toEqual([name, 'runtime', 'production']);
      expect(service.command?.[0]).toBe('node');
    }
    expect(compose.services.migrate.command).toEqual(['node', 'dist/libs/db/src/migrate.cli.js']);
    for (const name of APPS) {
      const service = compose.services[name];
      const needs = service.depends_on ?? {};
      const afterMigrations =
        needs.migrate?.condition === 'service_completed_successfully' || needs.seed?.condition === 'service_completed_successfully';
      expect([name, afterMigrations]).toEqual([name, true]);
      expect(service.healthcheck?.test.join(' ')).toContain('/readyz');
    }
    expect(compose.services.seed.depends_on?.migrate?.condition).toBe('service_completed_successfully');
  });

  it('takes secrets from the environment with no defaults, and publishes ports on 127.0.0.1 by default', () => {
    const text = readFileSync(join(REPO, 'docker-compose.yml'), 'utf8');
    for (const name of SECRET_VARIABLES) {
      const uses = [...text.matchAll(new RegExp(`\\$\\{${name}([^}]*)\\}`, 'g'))].map((m) => m[1]);
      expect(uses.length).toBeGreaterThan(0);
      for (const use of uses) expect([name, use]).toEqual([name, expect.stringMatching(/^:\?/)]);
    }
    expect(() => interpolate(String(compose.services['control-plane'].environment?.JWT_SECRET), {})).toThrow(/JWT_SECRET/);
    const published = Object.entries(compose.services).flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, interpolate(p, {})]));
    // The default services publish the apps' ports; the gateway profile adds its node's (docs/gateway.md).
    expect(published.map(([name]) => name)).toEqual([...APPS, 'gateway-node']);
    for (const [name, port] of published) expect([name, port]).toEqual([name, expect.stringMatching(/^127\.0\.0\.1:\d+:\d+$/)]);
    expect(compose.services.postgres).not.toHaveProperty('ports');
    expect(compose.services.redis).not.toHaveProperty('ports');
  });

  it('has a gateway profile: an SDK upstream, the gateway demo seeded against it, a node serving it', () => {
    const gateway = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes('gateway'));
    expect(gateway.map(([name]) => name)).toEqual(['demo-upstream', 'gateway-seed', 'gateway-node']);
    for (const [name, service] of gateway) {
      expect([name, service.build?.target, service.environment?.NODE_ENV, service.command?.[0]]).toEqual([
        name,
        'runtime',
        'production',
        'node',
      ]);
      // Every script a command runs is compiled into dist/ from a source file of the repository.
      const script = service.command![1].replace(/^dist\//, '').replace(/\.js$/, '.ts');
      expect([name, existsSync(join(REPO, script))]).toEqual([name, true]);
    }
    const { 'demo-upstream': upstream, 'gateway-seed': seed, 'gateway-node': node } = compose.services;
    const arg = (command: string[] | undefined, flag: string) => command?.[command.indexOf(flag) + 1];
    // The seeded manifests' upstream is the demo upstream's name on the compose network, which the
    // agent's upstreamAllow lists (its addresses are private), and the URL its card names.
    expect(arg(seed.command, '--upstream')).toBe(`${arg(upstream.command, '--public-url')}/a2a/jsonrpc`);
    expect(new URL(arg(seed.command, '--upstream')!).port).toBe(arg(upstream.command, '--port'));
    expect(arg(seed.command, '--allow')).toBe(new URL(arg(seed.command, '--upstream')!).hostname);
    expect(seed.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    expect(node.environment?.AGENT_ID).toBe('recon-gateway');
    expect(arg(seed.command, '--node-url')).toBe(`http://127.0.0.1:${node.environment?.AGENT_NODE_PORT}`);
    expect(node.depends_on).toEqual({
      'gateway-seed': { condition: 'service_completed_successfully' },
      'control-plane': { condition: 'service_healthy' },
      'demo-upstream': { condition: 'service_healthy' },
    });
    expect(node.healthcheck?.test.join(' ')).toContain('/readyz');
    expect(upstream).not.toHaveProperty('ports');
  });
});

describe('the image built without Docker boots every app', () => {
  const stages = new Map<string, StageResult>();
  const children: ChildProcess[] = [];
  const output = new Map<string, string>();
  let contextDir: string;
  let db: TestDatabase;
  let runtime: StageResult;
  let appDir: string;
  let vars: Record<string, string>;
  let loopback: Record<string, string>;

  const freePort = () =>
    new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });

  /** What a container of this service would see, with the compose network mapped to loopback. */
  const envOf = (name: string): Record<string, string> => {
    const composed = Object.fromEntries(
      Object.entries(compose.services[name].environment ?? {}).map(([key, value]) => [key, interpolate(String(value), vars)]),
    );
    return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...runtime.env, ...composed, ...loopback };
  };
  const exec = (name: string, command: string[]) =>
    spawnSync(command[0], command.slice(1), { cwd: appDir, env: envOf(name), encoding: 'utf8', timeout: 60_000 });

  beforeAll(async () => {
    const log = (line: string) => process.stderr.write(`[container-image] ${line}\n`);
    contextDir = mkdtempSync(join(tmpdir(), 'cp-image-context-'));
    buildContext(REPO, contextDir);
    for (const stage of dockerfile.stages) stages.set(stage.name, runStage(stage, contextDir, stages, log));
    runtime = stages.get('runtime')!;
    appDir = join(runtime.root, runtime.workdir);

    db = await createTestDatabase('container_image', { migrated: false });
    const [controlPlane, worker, agentNode, ...metrics] = await Promise.all(Array.from({ length: 6 }, () => freePort()));
    const jwtSecret = randomBytes(32).toString('hex');
    vars = {
      JWT_SECRET: jwtSecret,
      POSTGRES_PASSWORD: 'unused-on-loopback',
      NODE_TOKEN: mintNodeToken(testConfig({ JWT_SECRET: jwtSecret }), 'finance-agent'),
      SIGNING_KEYS: JSON.stringify({ keys: [generateKeyRingEntry('image-test')] }),
      LOG_LEVEL: 'warn',
    };
    // Exactly the variables that name the compose network's hosts and the container ports.
    loopback = {
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: `cp-image-${process.pid}:`,
      CONTROL_PLANE_PORT: String(controlPlane),
      WORKER_PORT: String(worker),
      AGENT_NODE_PORT: String(agentNode),
      // The metrics ports too: their defaults (9300–9302) may be taken by anything else on the machine.
      CONTROL_PLANE_METRICS_PORT: String(metrics[0]),
      WORKER_METRICS_PORT: String(metrics[1]),
      AGENT_NODE_METRICS_PORT: String(metrics[2]),
      CONTROL_PLANE_URL: `http://127.0.0.1:${controlPlane}`,
    };
  }, 20 * 60_000);

  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    await db?.drop();
    for (const dir of [contextDir, ...[...stages.values()].map((s) => s.root)]) if (dir) rmSync(dir, { recursive: true, force: true });
  }, 5 * 60_000);

  it('installs no development dependency and ships no test code', () => {
    // Exactly what package-lock.json says production needs: nothing it marks dev, dev-optional or optional.
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean; link?: boolean }>;
    };
    const wrong: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (!path.startsWith('node_modules/')) continue;
      const present = existsSync(join(appDir, path, 'package.json'));
      // The runtime install omits dev and optional packages (see the Dockerfile).
      const production = !entry.dev && !entry.devOptional && !entry.optional;
      if (present !== production) wrong.push(`${path}: ${present ? 'installed' : 'missing'}`);
    }
    expect(wrong).toEqual([]);
    for (const name of ['typescript', 'tsx', 'jest', 'prisma', '@prisma/prisma-schema-wasm', '@nestjs/cli'])
      expect([name, existsSync(join(appDir, 'node_modules', name))]).toEqual([name, false]);
    for (const name of Object.keys(packageJson.dependencies))
      expect([name, existsSync(join(appDir, 'node_modules', name, 'package.json'))]).toEqual([name, true]);
    const files = readdirSync(join(appDir, 'dist'), { recursive: true, encoding: 'utf8' });
    expect(files.filter((f) => /(^|\/)testing(\/|$)|\.spec\.js$|schema-drift/.test(f))).toEqual([]);
    for (const app of APPS) expect(files).toContain(`apps/${app}/src/main.js`);
  });

  it('runs the migrate job and the example seed to completion with production dependencies only', () => {
    const migrate = exec('migrate', compose.services.migrate.command!);
    expect([migrate.status, migrate.stderr]).toEqual([0, '']);
    expect(migrate.stdout).toMatch(/applied \d+ migration\(s\)/);
    const again = exec('migrate', compose.services.migrate.command!);
    expect([again.status, again.stdout]).toEqual([0, expect.stringMatching(/database is up to date/)]);
    const seed = exec('seed', compose.services.seed.command!);
    expect([seed.status, seed.stdout]).toEqual([0, 'seeded the finance agent example\n']);
  });

  it('starts the control plane, the worker and the agent node, each passing its compose health check', async () => {
    for (const name of APPS) {
      const [command, ...args] = compose.services[name].command!;
      const child = spawn(command, args, { cwd: appDir, env: envOf(name), stdio: ['ignore', 'pipe', 'pipe'] });
      output.set(name, '');
      const collect = (chunk: Buffer) => output.set(name, (output.get(name) ?? '') + chunk.toString());
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      children.push(child);
    }
    const healthy: Record<string, boolean> = {};
    const deadline = Date.now() + 90_000;
    for (const name of APPS) {
      const test = compose.services[name].healthcheck!.test;
      expect(test[0]).toBe('CMD');
      do {
        healthy[name] = exec(name, test.slice(1)).status === 0;
        if (!healthy[name]) await new Promise((r) => setTimeout(r, 500));
      } while (!healthy[name] && Date.now() < deadline && children.every((c) => c.exitCode === null));
    }
    const exited = APPS.filter((_, i) => children[i].exitCode !== null).map((name) => `${name}: ${output.get(name)}`);
    expect({ healthy, exited }).toEqual({ healthy: { 'control-plane': true, worker: true, 'agent-node': true }, exited: [] });

    const ready = await fetch(`http://127.0.0.1:${loopback.AGENT_NODE_PORT}/readyz`);
    expect(ready.status).toBe(200);
    const card = (await (await fetch(`http://127.0.0.1:${loopback.AGENT_NODE_PORT}/.well-known/agent-card.json`)).json()) as {
      skills: { id: string }[];
    };
    expect(card.skills.map((s) => s.id)).toEqual(['invoice-lookup']);
  }, 120_000);

  it('has cpctl on the image as an installed command', () => {
    const run = spawnSync(join(appDir, 'node_modules', '.bin', 'cpctl'), ['--version'], {
      cwd: appDir,
      env: envOf('control-plane'),
      encoding: 'utf8',
    });
    expect([run.status, run.stdout.trim()]).toEqual([0, '0.1.0']);
  });
});
