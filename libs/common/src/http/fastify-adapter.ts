import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { AppConfig } from '../config/config';
import { SECURITY_HEADERS } from './security-headers';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's x-request-id is kept when it is sane; otherwise a new one is made. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * The Fastify adapter every app uses: body limit from config, a request id that is echoed in
 * `x-request-id` and copied to the raw request so the pino logger logs it, and the security
 * headers (SECURITY_HEADERS) on every response, raw Fastify routes included.
 */
export function createFastifyAdapter(config: Pick<AppConfig, 'MAX_BODY_BYTES'>): FastifyAdapter {
  const adapter = new FastifyAdapter({ bodyLimit: config.MAX_BODY_BYTES, genReqId: requestIdFor, trustProxy: false });
  adapter.getInstance().addHook('onRequest', (request, reply, done) => {
    (request.raw as IncomingMessage & { id?: string }).id = request.id;
    void reply.headers(SECURITY_HEADERS).header('x-request-id', request.id);
    done();
  });
  return adapter;
}
