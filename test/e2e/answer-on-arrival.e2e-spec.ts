/**
 * The common Fastify adapter (ADR 0185): a route registered with answerOnArrival is answered from
 * the adapter's first request hook, with the security headers and the request id, before Nest's
 * middleware; every other route still runs the middleware; the adapter's onResponse hook still
 * runs the hook an app sets with setOnResponseHook.
 */
import {
  Controller,
  Get,
  Inject,
  Injectable,
  Module,
  type MiddlewareConsumer,
  type NestMiddleware,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerOnArrival, createFastifyAdapter } from '@cp/common';
import { until } from '../support/until';

/** Stands for pino-http and any other Nest middleware: marks the answers it ran for. */
@Injectable()
class MarkingMiddleware implements NestMiddleware {
  use(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
    res.setHeader('x-middleware', 'ran');
    next();
  }
}

@Controller()
class PingController {
  @Get('ping')
  ping(): { ok: boolean } {
    return { ok: true };
  }
}

@Injectable()
class RawRoutes implements OnModuleInit {
  constructor(@Inject(HttpAdapterHost) private readonly host: HttpAdapterHost) {}

  onModuleInit(): void {
    const app = this.host.httpAdapter.getInstance<FastifyInstance>();
    answerOnArrival(app, '/card', (request, reply) => {
      const fresh = request.headers['if-none-match'] === '"v1"';
      void reply.header('etag', '"v1"').header('cache-control', 'public, max-age=60');
      return fresh ? reply.code(304).send() : reply.header('content-type', 'application/json').send('{"card":1}');
    });
    app.get('/raw', (_request, reply) => reply.send('raw'));
  }
}

@Module({ controllers: [PingController], providers: [RawRoutes] })
class ArrivalTestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(MarkingMiddleware).forRoutes('*');
  }
}

describe('routes answered on arrival by the common Fastify adapter', () => {
  let app: NestFastifyApplication;
  let url: string;
  const responses: string[] = [];

  beforeAll(async () => {
    const ref = await Test.createTestingModule({ imports: [ArrivalTestModule] }).compile();
    const adapter = createFastifyAdapter({ MAX_BODY_BYTES: 1024 });
    adapter.setOnResponseHook((request) => {
      responses.push(request.url);
    });
    app = ref.createNestApplication<NestFastifyApplication>(adapter, { logger: false });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers the card and its 304 with the security headers and the request id, without the middleware', async () => {
    const ok = await fetch(`${url}/card`, { headers: { 'x-request-id': 'arrival-1' } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('{"card":1}');
    expect(ok.headers.get('x-request-id')).toBe('arrival-1');
    expect(ok.headers.get('x-content-type-options')).toBe('nosniff');
    expect(ok.headers.get('cache-control')).toBe('public, max-age=60');
    expect(ok.headers.get('x-middleware')).toBeNull();
    const fresh = await fetch(`${url}/card`, { headers: { 'if-none-match': '"v1"', 'x-request-id': 'arrival-2' } });
    expect(fresh.status).toBe(304);
    expect(fresh.headers.get('x-request-id')).toBe('arrival-2');
    expect(fresh.headers.get('x-frame-options')).toBe('DENY');
    expect(fresh.headers.get('etag')).toBe('"v1"');
  });

  it('answers the same through the ordinary route when the URL has a query string (the middleware then runs)', async () => {
    const res = await fetch(`${url}/card?x=1`, { headers: { 'if-none-match': '"v1"' } });
    expect(res.status).toBe(304);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-middleware')).toBe('ran');
  });

  it('still runs the middleware, with the security headers, on Nest routes and other raw routes', async () => {
    for (const path of ['/ping', '/raw']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-middleware')).toBe('ran');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it("still calls the app's onResponse hook, for routes answered on arrival too", async () => {
    responses.length = 0;
    await (await fetch(`${url}/card`)).text();
    await (await fetch(`${url}/ping`)).text();
    await until('both onResponse calls', () => responses.length >= 2, 2000);
    expect(responses.sort()).toEqual(['/card', '/ping']);
  });
});
