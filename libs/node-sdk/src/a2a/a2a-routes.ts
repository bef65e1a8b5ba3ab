/**
 * The A2A bindings as raw Fastify routes, in one encapsulated plugin with its own body parser and
 * error handler (so malformed or oversized bodies get A2A-shaped answers). Every route comes from
 * the operation table (http/operations.ts) and runs the one request pipeline (http/pipeline.ts):
 *   JSON-RPC      POST {jsonRpcPath}, 1.0 and 0.3 method names        http/jsonrpc-binding.ts
 *   HTTP+JSON     {restBase}/message:send, /tasks/{id}:cancel, …      http/rest-binding.ts
 *   0.3 HTTP+JSON {restBase}/v1/…, 0.3 proto-JSON translated at the edge (ADR 0165; only where
 *                 the agent serves 0.3)                               http/rest-v03-binding.ts
 * Streams are Server-Sent Events (sse-writer.ts). The push-config operations are served when the
 * agent declares push notifications (ADR 0162) and answer PushNotificationNotSupportedError otherwise.
 */
import type { FastifyInstance } from 'fastify';
import { A2AError, A2AErrorName } from './a2a-errors';
import { jsonRpcRoute, sendJsonRpcError } from './http/jsonrpc-binding';
import { toA2AError, type A2ARoutesOptions, type Binding } from './http/pipeline';
import { REST_V10, registerRest, sendRestError } from './http/rest-binding';
import { restV03Flavor, sendV03RestError } from './http/rest-v03-binding';

export type { A2ARoutesOptions } from './http/pipeline';

export function registerA2ARoutes(app: FastifyInstance, options: A2ARoutesOptions): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Raw bytes: we parse ourselves to answer -32700 (JSON-RPC) or an AIP-193 body (REST).
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.maxBodyBytes }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
      const config = request.routeOptions.config as { binding?: Binding; v03?: boolean };
      const binding = config.binding ?? 'rest';
      const a2a =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? new A2AError(A2AErrorName.PayloadTooLarge, `the request body exceeds ${options.maxBodyBytes} bytes`, {
              limit: String(options.maxBodyBytes),
            })
          : error.statusCode !== undefined && error.statusCode < 500
            ? new A2AError(binding === 'jsonrpc' ? A2AErrorName.InvalidRequest : A2AErrorName.InvalidParams, error.message)
            : toA2AError(error, options.log);
      if (binding === 'jsonrpc') return sendJsonRpcError(reply, null, a2a);
      return config.v03 ? sendV03RestError(reply, a2a) : sendRestError(reply, a2a);
    });

    // Every route opens its SERVER span (traced() in the bindings), so no route goes untraced.
    scope.post(options.jsonRpcPath, { config: { binding: 'jsonrpc' } }, jsonRpcRoute(options));
    registerRest(scope, options, REST_V10);
    registerRest(scope, options, restV03Flavor(options.service));
  });
}
