import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where an authentication layer leaves who the caller is, for the access log (never the token). */
const PRINCIPAL = Symbol.for('cp.accessLog.principal');

type WithPrincipal = IncomingMessage & { [PRINCIPAL]?: string };

/** Records the verified caller of this request as `kind:subject` (e.g. `admin:ci-bot`). */
export function recordPrincipal(raw: IncomingMessage, kind: string, subject: string): void {
  (raw as WithPrincipal)[PRINCIPAL] = `${kind}:${subject}`;
}

export function principalOf(raw: IncomingMessage): string | undefined {
  return (raw as WithPrincipal)[PRINCIPAL];
}

export interface AccessLogSink {
  info(fields: Record<string, unknown>, message: string): void;
  debug(fields: Record<string, unknown>, message: string): void;
  /** pino's; without it every level counts as enabled. */
  isLevelEnabled?(level: string): boolean;
}

const PROBES = new Set(['/healthz', '/readyz']);

/** The one line logged per request. The route pattern, not the URL: a query string may carry secrets. */
export function accessLogLine(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  return {
    requestId: request.id,
    method: request.method,
    route: request.routeOptions.url ?? '(no route)',
    status: reply.statusCode,
    durationMs: Math.round(reply.elapsedTime * 100) / 100,
    principal: principalOf(request.raw) ?? 'anonymous',
    ...traceOf(request.raw),
  };
}

/** Where a traced route leaves its trace id, so the access line of that request names it. */
const TRACE = Symbol.for('cp.accessLog.traceId');
type WithTrace = IncomingMessage & { [TRACE]?: string };

export function recordTraceId(raw: IncomingMessage, traceId: string | null): void {
  if (traceId) (raw as WithTrace)[TRACE] = traceId;
}

function traceOf(raw: IncomingMessage): { traceId?: string } {
  const id = (raw as WithTrace)[TRACE];
  return id === undefined ? {} : { traceId: id };
}

/**
 * Logs every request once when its response is sent, raw Fastify routes (the A2A layer, Apollo's
 * /graphql) included. Health probes are logged at debug so a load balancer does not drown the log.
 * With the log level above info the hook is not installed at all: an onResponse hook that writes
 * nothing still costs a 304 about a tenth of its time (issue 18, docs/performance.md).
 */
export function registerAccessLog(app: FastifyInstance, sink: AccessLogSink): void {
  const enabled = (level: string) => sink.isLevelEnabled?.(level) ?? true;
  if (!enabled('info') && !enabled('debug')) return;
  app.addHook('onResponse', (request, reply, done) => {
    const line = accessLogLine(request, reply);
    if (PROBES.has(line.route as string)) sink.debug(line, 'request');
    else sink.info(line, 'request');
    done();
  });
}
