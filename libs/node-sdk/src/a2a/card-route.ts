/**
 * GET /.well-known/agent-card.json as a raw Fastify route: the bundle's exact bytes (serialized
 * and hashed once per revision by the core), a strong ETag, Cache-Control max-age, 304 on a
 * matching If-None-Match. No per-request serialization, hashing or Nest pipeline.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answerOnArrival, contextFromHeaders, inSpan, SpanKind, tracingOn } from '@cp/common/core';
import { NO_A2A_OBSERVER, type A2AObserver } from '../observability/observer';
import { declaredBy, type ServedBundle } from './served-bundle';
import { requestedVersion } from './version';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** Whether an If-None-Match value matches the ETag (`*`, lists, weak comparison per RFC 9110). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === etag) return true;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((t) => {
    const v = t.trim();
    return (v.startsWith('W/') ? v.slice(2) : v) === etag;
  });
}

export function registerCardRoute(
  app: FastifyInstance,
  bundle: () => ServedBundle | undefined,
  maxAgeSeconds: number,
  observer: A2AObserver = NO_A2A_OBSERVER,
): void {
  const cacheControl = `public, max-age=${maxAgeSeconds}`;
  const serve = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const b = bundle();
    if (!b) {
      observer.card('public', 503);
      void reply
        .code(503)
        .header('retry-after', '1')
        .header('content-type', 'application/json')
        .send('{"error":"no capability bundle applied yet"}');
      return reply;
    }
    // A 0.3 client (no A2A-Version: 1.x) of an agent serving 0.3 reads the hybrid 0.3 card (ADR 0160).
    const d = declaredBy(b);
    const v03 = d.v03Card && requestedVersion(request.headers['a2a-version'], undefined).startsWith('0.') ? d.v03Card : undefined;
    const etag = v03?.etag ?? b.publicCard.etag;
    void reply.header('etag', etag).header('cache-control', cacheControl).header('vary', 'A2A-Version');
    const inm = request.headers['if-none-match'];
    if (inm !== undefined && etagMatches(inm, etag)) {
      observer.card('public', 304);
      void reply.code(304).send();
      return reply;
    }
    observer.card('public', 200);
    void reply.header('content-type', 'application/json').send(v03 ? v03.body : d.publicCardBytes);
    return reply;
  };
  const latency = observer.cardLatency?.bind(observer);
  const answer = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    // Tracing off: straight to the answer (no context, no span).
    if (!tracingOn()) return serve(request, reply);
    return inSpan(
      'a2a.card',
      { 'a2a.card.kind': 'public' },
      (span) => {
        const sent = serve(request, reply);
        span?.setAttribute('http.response.status_code', reply.statusCode);
        return sent;
      },
      { kind: SpanKind.SERVER, parent: contextFromHeaders(request.headers) },
    );
  };
  // Latency is timed in the handler, around the synchronous send, never with an onResponse hook:
  // any such hook makes Fastify attach response listeners to every request, which alone cost a
  // 304 about a third of its throughput (ADR 0143). Without metrics the route is the bare answer.
  // Answered on arrival in apps on the common adapter: no Nest request hook or middleware runs for
  // it (ADR 0185).
  answerOnArrival(
    app,
    AGENT_CARD_PATH,
    latency
      ? (request: FastifyRequest, reply: FastifyReply) => {
          const started = performance.now();
          const sent = answer(request, reply);
          latency((performance.now() - started) / 1000);
          return sent;
        }
      : answer,
  );
}
