/**
 * ADR 0193: GET /node/v1/bundle is answered from the adapter's first request hook, before Nest's
 * request hooks and middleware, with an asynchronous handler (token check, Redis read). What the
 * route must still do on every answer, the 304 a node revalidates with and the 401 of a bad token
 * included: security headers, the request id, the access line (route, status, principal), its own
 * counters; a query string still reaches the same handler through the ordinary route.
 */
import { Injectable, Module, type MiddlewareConsumer, type NestMiddleware } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { NodeBundleRoute } from '../../apps/control-plane/src/node-api/node-bundle.route';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { LogCapture } from '../support/log-capture';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const AGENT = 'finance-agent';

/** Stands for any Nest middleware (pino-http's): marks the answers it ran for. */
@Injectable()
class MarkingMiddleware implements NestMiddleware {
  use(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
    res.setHeader('x-middleware', 'ran');
    next();
  }
}

@Module({ imports: [AppModule] })
class MarkedAppModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(MarkingMiddleware).forRoutes('*');
  }
}

function expectSecurityHeaders(headers: Headers, cacheControl: string) {
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(headers.get('cross-origin-opener-policy')).toBe('same-origin');
  expect(headers.get('cache-control')).toBe(cacheControl);
}

describe('the node bundle route answered on arrival (ADR 0193)', () => {
  let db: TestDatabase;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let token: string;
  const logs = new LogCapture();

  async function accessLine(requestId: string) {
    await until(`the access line of ${requestId}`, () => logs.requests().some((l) => l.requestId === requestId), 2000);
    const lines = logs.requests().filter((l) => l.requestId === requestId);
    expect(lines).toHaveLength(1);
    return lines[0];
  }

  beforeAll(async () => {
    db = await createTestDatabase('bundle_on_arrival');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:bundle-arrival:${process.pid}:`, LOG_LEVEL: 'info' });
    ({ app, url } = await bootApp(MarkedAppModule, config, { logs }));
    await seedWhenEmpty(app.get(PrismaService));
    token = mintNodeToken(config, AGENT);
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('200 then 304: etag, security headers, request id, access line with the node principal; no Nest middleware', async () => {
    const route = app.get(NodeBundleRoute);
    const fullBefore = route.stats.full;
    const first = await fetch(`${url}/node/v1/bundle`, { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'arr-200' } });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"?r\d+-[0-9a-f]{64}"?$/);
    expect(await first.json()).toBeTruthy();
    expect(route.stats.full).toBe(fullBefore + 1);

    const res = await fetch(`${url}/node/v1/bundle`, {
      headers: { authorization: `Bearer ${token}`, 'if-none-match': etag, 'x-request-id': 'arr-304' },
    });
    expect(res.status).toBe(304);
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('x-request-id')).toBe('arr-304');
    expect(res.headers.get('x-middleware')).toBeNull();
    expectSecurityHeaders(res.headers, 'no-cache');
    expect(route.stats.full).toBe(fullBefore + 1);
    expect(await accessLine('arr-304')).toMatchObject({
      method: 'GET',
      route: '/node/v1/bundle',
      status: 304,
      level: 30,
      principal: expect.stringMatching(new RegExp(`^node:.*${AGENT}$`)),
    });

    // An insane request id is replaced, as on every other route.
    const fresh = await fetch(`${url}/node/v1/bundle`, {
      headers: { authorization: `Bearer ${token}`, 'if-none-match': etag, 'x-request-id': 'bad id!' },
    });
    expect(fresh.status).toBe(304);
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a bad or missing token: 401 with the security headers, the request id and an anonymous access line', async () => {
    for (const [id, authorization] of [
      ['arr-401-bad', 'Bearer not.a.token'],
      ['arr-401-none', undefined],
    ] as const) {
      const headers: Record<string, string> = { 'x-request-id': id, 'if-none-match': '"r1-' + '0'.repeat(64) + '"' };
      if (authorization) headers.authorization = authorization;
      const res = await fetch(`${url}/node/v1/bundle`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('etag')).toBeNull();
      expect(res.headers.get('x-request-id')).toBe(id);
      expect(res.headers.get('x-middleware')).toBeNull();
      expectSecurityHeaders(res.headers, 'no-store');
      expect(await accessLine(id)).toMatchObject({ route: '/node/v1/bundle', status: 401, principal: 'anonymous' });
    }
  });

  it('a query string takes the ordinary route (Nest middleware runs) to the same answers', async () => {
    const first = await fetch(`${url}/node/v1/bundle`, { headers: { authorization: `Bearer ${token}` } });
    const etag = first.headers.get('etag')!;
    await first.text();
    const res = await fetch(`${url}/node/v1/bundle?x=1`, {
      headers: { authorization: `Bearer ${token}`, 'if-none-match': etag, 'x-request-id': 'arr-query' },
    });
    expect(res.status).toBe(304);
    expect(res.headers.get('x-middleware')).toBe('ran');
    expectSecurityHeaders(res.headers, 'no-cache');
    expect(await accessLine('arr-query')).toMatchObject({ route: '/node/v1/bundle', status: 304 });
    const bad = await fetch(`${url}/node/v1/bundle?x=1`, { headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
  });
});
