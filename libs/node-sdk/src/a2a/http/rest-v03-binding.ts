/**
 * A2A 0.3 HTTP+JSON under `{restBase}/v1` (ADR 0165): the same operations and the same pipeline as
 * the 1.0 routes (authentication, metrics, deprecation headers, usage counting), with 0.3
 * proto-JSON translated in and out (v03/shapes.ts), 0.3 error bodies (`{code, message, data}`) and
 * the 1.0 HTTP statuses; served only where the agent lists a 0.3 HTTP+JSON interface.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { A2AError, A2AErrorName } from '../a2a-errors';
import { declaredBy } from '../served-bundle';
import { eventToV03Proto } from '../v03/shapes';
import { negotiateVersion, requestedVersion } from '../version';
import type { A2AService } from '../a2a-service';
import { encode, REST_V03_ROUTES } from './operations';
import { authenticateHeader } from './pipeline';
import { pathOf, type RestFlavor } from './rest-binding';

const JSON_TYPE = 'application/json';

/** A 0.3 HTTP+JSON error: the 1.0 HTTP status with the 0.3 body `{code, message, data}` (ADR 0165). */
export function sendV03RestError(reply: FastifyReply, error: A2AError): FastifyReply {
  authenticateHeader(reply, error);
  return reply.code(error.mapping.http).header('content-type', JSON_TYPE).send(JSON.stringify(error.toJsonRpc()));
}

/** 0.3 only where the card lists it, and a 1.x version on a /v1 path is named as the mix-up it is. */
function served(request: FastifyRequest, service: A2AService): '0.3' {
  if (!declaredBy(service.current()).versions.rest.has('0.3')) {
    throw new A2AError(
      A2AErrorName.VersionNotSupported,
      'A2A 0.3 over HTTP+JSON is not served by this agent; supported: 1.0 (paths without /v1)',
      {
        requested: '0.3',
        supported: '1.0',
      },
    );
  }
  const query = (request.query as Record<string, unknown>)['A2A-Version'];
  if (/^1\./.test(requestedVersion(request.headers['a2a-version'], query))) {
    throw new A2AError(A2AErrorName.VersionNotSupported, 'the /v1 paths are A2A 0.3; A2A 1.0 paths have no /v1 prefix', {
      requested: '1.0',
      supported: '0.3',
    });
  }
  negotiateVersion(request.headers['a2a-version'], query, new Set(['0.3']));
  return '0.3';
}

export function restV03Flavor(service: A2AService): RestFlavor {
  return {
    prefix: '/v1',
    routes: REST_V03_ROUTES,
    config: { binding: 'rest', v03: true },
    version: (request) => served(request, service),
    // The deprecation headers follow the 1.0 answer's capability; the body is the 0.3 translation.
    encode: (binding, result) => ({
      json: JSON.stringify(binding.answer!(result)),
      capabilityId: binding.op.kind === 'unary' ? encode(binding.op, result).capabilityId : undefined,
    }),
    wire: {
      binding: 'rest',
      error: sendV03RestError,
      answer: async (reply, answer) => {
        await reply.code(200).header('content-type', JSON_TYPE).send(answer.json);
        return 200;
      },
      frames: { event: (e) => `data: ${JSON.stringify(eventToV03Proto(e))}\n\n`, error: (e) => e.toJsonRpc() },
    },
    notFound: (request) => new A2AError(A2AErrorName.MethodNotFound, `no A2A 0.3 operation at ${request.method} ${pathOf(request)}`),
  };
}
