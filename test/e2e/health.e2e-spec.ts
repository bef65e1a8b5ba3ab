import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { AgentNodeModule } from '../../apps/agent-node/src/agent-node.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe.each([
  ['control-plane', AppModule, ['postgres', 'redis']],
  ['worker', WorkerModule, ['postgres', 'redis']],
  // The agent node is ready only once a capability bundle is applied; here no control plane runs.
  ['agent-node', AgentNodeModule, ['bundle', 'redis']],
] as const)('%s health endpoints', (name, module, dependencies) => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let cacheDir: string;

  beforeAll(async () => {
    db = await createTestDatabase(`health_${name}`);
    // No bundle on disk and no control plane (a closed port): whatever runs on this machine.
    cacheDir = mkdtempSync(join(tmpdir(), 'cp-health-'));
    ({ app, url } = await bootApp(
      module,
      testConfig({ DATABASE_URL: db.url, NODE_CACHE_DIR: cacheDir, CONTROL_PLANE_URL: 'http://127.0.0.1:9' }),
    ));
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('answers /healthz while the process lives', async () => {
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it('answers /readyz naming each dependency it checked (200 when all are up)', async () => {
    const res = await fetch(`${url}/readyz`);
    const body = (await res.json()) as { status: string; details: Record<string, { status: string }> };
    expect(Object.keys(body.details).sort()).toEqual([...dependencies].sort());
    if (name === 'agent-node') {
      expect(res.status).toBe(503);
      expect(body.details.bundle.status).toBe('down');
      expect(body.details.redis.status).toBe('up');
    } else {
      expect(res.status).toBe(200);
      expect(body.status).toBe('ok');
    }
  });

  it('echoes a sane x-request-id and replaces an unsafe one', async () => {
    const kept = await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('readiness when a dependency is down', () => {
  let app: NestFastifyApplication;
  let url: string;
  beforeAll(async () => {
    // A database that does not exist: PostgreSQL answers, but not for us.
    ({ app, url } = await bootApp(AppModule, testConfig({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/cp_test_does_not_exist' })));
  });
  afterAll(() => app?.close());

  it('answers /readyz 503 and names postgres as down, /healthz still 200', async () => {
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: Record<string, { status: string }> };
    expect(body.error.postgres.status).toBe('down');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
