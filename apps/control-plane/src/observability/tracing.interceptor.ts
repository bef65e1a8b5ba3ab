import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { GqlExecutionContext, type GqlContextType } from '@nestjs/graphql';
import type { FastifyRequest } from 'fastify';
import type { GraphQLResolveInfo } from 'graphql';
import { Observable } from 'rxjs';
import { contextFromHeaders, openSpan, recordTraceId, SpanKind, type OpenSpan } from '@cp/common';
import type { GraphQLRequestContext } from '../graphql/graphql-api.module';

/**
 * Every GraphQL root field and every Nest HTTP route (the node API: token exchange, acks, usage)
 * runs in a SERVER span that continues the caller's `traceparent` (ADR 0141); what the handler
 * awaits (RegistryWriter, the bundle build, the publish) inherits it. Nothing while tracing is off.
 */
@Injectable()
export class TracingInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const open = this.open(ctx);
    if (!open) return next.handle();
    return new Observable((subscriber) =>
      open.run(() =>
        next.handle().subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => {
            open.end(errorCode(error));
            subscriber.error(error);
          },
          complete: () => {
            open.end();
            subscriber.complete();
          },
        }),
      ),
    );
  }

  private open(ctx: ExecutionContext): OpenSpan | undefined {
    if (ctx.getType<GqlContextType>() === 'graphql') {
      const gql = GqlExecutionContext.create(ctx);
      const info = gql.getInfo<GraphQLResolveInfo>();
      // Root fields only: nested resolvers are part of their root field's span.
      if (!info || info.path.prev !== undefined) return undefined;
      const req = gql.getContext<GraphQLRequestContext>().req;
      const type = info.operation.operation;
      const span = openSpan(
        `graphql.${type} ${info.fieldName}`,
        { 'graphql.operation.type': type, 'graphql.field': info.fieldName },
        { kind: SpanKind.SERVER, parent: contextFromHeaders(req.headers) },
      );
      if (span) recordTraceId(req.raw, span.traceId);
      return span;
    }
    if (ctx.getType() !== 'http') return undefined;
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    const route = req.routeOptions?.url ?? '(no route)';
    const span = openSpan(
      `${req.method} ${route}`,
      { 'http.request.method': req.method, 'http.route': route },
      { kind: SpanKind.SERVER, parent: contextFromHeaders(req.headers) },
    );
    if (span) recordTraceId(req.raw, span.traceId);
    return span;
  }
}

/** A code, never a message (messages may echo input). */
function errorCode(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown };
  return typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'ERROR';
}
