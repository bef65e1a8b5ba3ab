import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { AppConfig } from '../config/config';
import { ARRIVAL_ROUTES, type ArrivalHandler } from './arrival-routes';
import { SECURITY_HEADERS } from './security-headers';

// Nest-free, so the A2A server's card route can use it without loading Nest (ADR 0224).
export { answerOnArrival, type ArrivalHandler } from './arrival-routes';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's x-request-id is kept when it is sane; otherwise a new one is made. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Nest's Fastify adapter with the hook of this codebase first in the request chain, and without the
 * adapter's `onResponse` hook while no `setOnResponseHook` asked for one (ADR 0185): any
 * `onResponse` hook, even one that does nothing, makes Fastify attach response listeners to every
 * request (ADR 0143).
 */
class ServingFastifyAdapter extends FastifyAdapter {
  // `declare`: set while the base constructor runs, so no field initializer may reset them after.
  declare private idleResponseHook?: (...args: never[]) => void;
  declare private originalAddHook?: FastifyInstance['addHook'];

  // Nest's constructor calls this right after creating the instance, before it adds its own hooks.
  override setInstance<T = unknown>(instance: T): void {
    super.setInstance(instance);
    const app = instance as FastifyInstance;
    const arrivals = new Map<string, ArrivalHandler>();
    ARRIVAL_ROUTES.set(app.server, arrivals);
    app.addHook('onRequest', arrivalHook(arrivals));
    // Shadows addHook while Nest's constructor runs (restored by createFastifyAdapter): the one
    // onResponse hook it adds there only calls the hook set with setOnResponseHook.
    const addHook = (this.originalAddHook = app.addHook);
    (app as { addHook: unknown }).addHook = (name: string, fn: (...args: never[]) => void) => {
      if (name === 'onResponse' && this.idleResponseHook === undefined) {
        this.idleResponseHook = fn;
        return app;
      }
      return (addHook as (n: string, f: unknown) => FastifyInstance).call(app, name, fn);
    };
  }

  /** Ends the constructor's interception of addHook (see setInstance). */
  restoreAddHook(): void {
    this.getInstance<FastifyInstance>().addHook = this.originalAddHook!;
  }

  override setOnResponseHook(hook: Parameters<FastifyAdapter['setOnResponseHook']>[0]): void {
    super.setOnResponseHook(hook);
    const idle = this.idleResponseHook;
    if (idle === undefined) return;
    this.idleResponseHook = undefined;
    this.getInstance<FastifyInstance>().addHook('onResponse', idle as never);
  }
}

/**
 * Security headers and the request id on every answer, then the answer itself for a route
 * registered with answerOnArrival.
 */
function arrivalHook(arrivals: Map<string, ArrivalHandler>): onRequestHookHandler {
  return (request, reply, done) => {
    (request.raw as IncomingMessage & { id?: string }).id = request.id;
    void reply.headers(SECURITY_HEADERS).header('x-request-id', request.id);
    const handler = request.method === 'GET' && !request.is404 ? arrivals.get(request.raw.url!) : undefined;
    if (handler === undefined) return done();
    try {
      const answered = handler(request, reply);
      // `done` is never called once the handler has answered: that ends the request's hook chain.
      // A Promise, not any thenable: the reply a synchronous handler returns is one, and its
      // `then` would add response listeners to every request (ADR 0143).
      if (answered instanceof Promise) answered.catch((err: Error) => (reply.sent ? request.log.error(err) : done(err)));
    } catch (err) {
      done(err as Error);
    }
  };
}

/**
 * The Fastify adapter every app uses: body limit from config, a request id that is echoed in
 * `x-request-id` and copied to the raw request so the pino logger logs it, the security headers
 * (SECURITY_HEADERS) on every response, raw Fastify routes included, and the routes registered
 * with answerOnArrival answered before Nest's request hooks and middleware.
 */
export function createFastifyAdapter(config: Pick<AppConfig, 'MAX_BODY_BYTES'>): FastifyAdapter {
  const adapter = new ServingFastifyAdapter({ bodyLimit: config.MAX_BODY_BYTES, genReqId: requestIdFor, trustProxy: false });
  adapter.restoreAddHook();
  return adapter;
}
