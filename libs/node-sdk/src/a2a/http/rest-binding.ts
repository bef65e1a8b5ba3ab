/**
 * The HTTP+JSON binding: the routes of the operation table registered on Fastify, for A2A 1.0 under
 * `{restBase}` and (rest-v03-binding.ts) for 0.3 under `{restBase}/v1`. A route template's static
 * part is a Fastify route; templated paths (`/tasks/{id}:cancel`) share one wildcard route per verb
 * and are told apart here, each running under its own operation's name (spans and metrics).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { A2AError, A2AErrorName } from '../a2a-errors';
import { etagMatches } from '../card-route';
import { checkDepth } from '../validate-params';
import { checkVersion, type ProtocolVersion } from '../version';
import { encode, REST_ROUTES, type Answer, type Verb, type RestBinding, type RestInput } from './operations';
import { authenticateHeader, runOperation, traced, type A2ARoutesOptions, type Route, type Wire } from './pipeline';

const REST_TYPE = 'application/a2a+json';

/** What differs between the 1.0 and the 0.3 HTTP+JSON routes. */
export interface RestFlavor {
  /** Under the REST base: '' (1.0) or '/v1' (0.3). */
  prefix: string;
  routes: readonly RestBinding[];
  /** Route config read by the scope's error handler (errors raised before the route answer in this shape). */
  config: { binding: 'rest'; v03?: boolean };
  /** The version check, before anything else; the version the request speaks. */
  version(request: FastifyRequest): ProtocolVersion;
  /** The 1.0 result → this flavor's answer. */
  encode(binding: RestBinding, result: unknown): Answer;
  wire: Wire;
  notFound(request: FastifyRequest): A2AError;
}

export function sendRestError(reply: FastifyReply, error: A2AError): FastifyReply {
  authenticateHeader(reply, error);
  return reply.code(error.mapping.http).header('content-type', REST_TYPE).send(JSON.stringify(error.toRest()));
}

export function parseRestBody(body: unknown, maxDepth: number): unknown {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : '';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new A2AError(A2AErrorName.InvalidParams, 'the request body is not valid JSON', {}, 'PARSE_ERROR');
  }
  checkDepth(value, maxDepth);
  return value;
}

/** A2A 1.0: bare StreamResponse events, AIP-193 errors, `application/a2a+json`, ETag and 304 on the card. */
export const REST_V10: RestFlavor = {
  prefix: '',
  routes: REST_ROUTES,
  config: { binding: 'rest' },
  version: (request) => {
    checkVersion(request.headers['a2a-version'], (request.query as Record<string, unknown>)['A2A-Version']);
    return '1.0';
  },
  encode: (binding, result) => (binding.op.kind === 'unary' ? encode(binding.op, result) : { json: 'null' }),
  wire: {
    binding: 'rest',
    error: sendRestError,
    answer: async (reply, answer) => {
      if (answer.etag) {
        void reply.header('etag', answer.etag);
        const inm = reply.request.headers['if-none-match'];
        if (inm !== undefined && etagMatches(inm, answer.etag)) {
          await reply.code(304).send();
          return 304;
        }
      }
      await reply.code(200).header('content-type', REST_TYPE).send(answer.json);
      return 200;
    },
    frames: { event: (e) => `data: ${JSON.stringify(e)}\n\n`, error: (e) => e.toRest() },
  },
  notFound: (request) => new A2AError(A2AErrorName.MethodNotFound, `no operation at ${request.method} ${pathOf(request)}`),
};

export const pathOf = (request: FastifyRequest): string => request.url.split('?')[0].slice(0, 200);

interface Compiled {
  binding: RestBinding;
  pattern: RegExp;
  route: Route;
}

/** `/tasks/{id}:cancel` → a regex whose groups are the named segments (no `/` or `:` inside one). */
function compile(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split(/(\{[^}]+\})/)
    .map((piece) => {
      const name = /^\{([^}]+)\}$/.exec(piece)?.[1];
      if (name === undefined) return piece.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/:]+)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), names };
}

/** Registers every route of one flavor; each runs the one pipeline under its operation's name. */
export function registerRest(scope: FastifyInstance, options: A2ARoutesOptions, flavor: RestFlavor): void {
  const base = `${options.restBase.replace(/\/$/, '')}${flavor.prefix}`;
  const groups = new Map<string, { verb: Verb; url: string; routes: Compiled[] }>();
  for (const binding of flavor.routes) {
    const { verb, path } = binding.route;
    const brace = path.indexOf('{');
    // Fastify: `::` is a literal colon; templated paths share the wildcard of their static prefix.
    const url = brace < 0 ? path.replaceAll(':', '::') : `${path.slice(0, brace)}*`;
    const key = `${verb} ${url}`;
    const group = groups.get(key) ?? { verb, url, routes: [] };
    groups.set(key, group);
    const { pattern, names } = compile(path);
    const handler = (request: FastifyRequest, reply: FastifyReply, segments: string[] | undefined) =>
      runOperation(request, reply, options, flavor.wire, () => {
        const version = flavor.version(request);
        const input: RestInput = {
          path: Object.fromEntries(names.map((n, i) => [n, segments?.[i] ?? ''])),
          query: request.query as Record<string, unknown>,
          body: () => parseRestBody(request.body, options.maxJsonDepth),
        };
        return {
          op: binding.op,
          version,
          // No route matched: refused after authentication, under the first operation of this verb and path.
          params: () => {
            if (!segments) throw flavor.notFound(request);
            return binding.params(input);
          },
          encode: (result) => flavor.encode(binding, result),
        };
      });
    group.routes.push({
      binding,
      pattern,
      route: traced('rest', binding.op.method, (request, reply) => {
        const m = pattern.exec(decodedPath(request, group.url));
        return handler(request, reply, m ? m.slice(1) : undefined);
      }),
    });
  }
  for (const { verb, url, routes } of groups.values()) {
    scope.route({
      method: verb,
      url: `${base}${url}`,
      config: flavor.config,
      handler: (request, reply) => {
        const path = decodedPath(request, url);
        const match = routes.find((r) => r.pattern.test(path)) ?? routes[0];
        return match.route(request, reply);
      },
    });
  }
}

/**
 * The route's path under the base, with the wildcard as Fastify decoded it (it answers 400 to a
 * malformed encoding; decoding again broke ids holding "%", a 500 the fuzz suite found).
 */
function decodedPath(request: FastifyRequest, url: string): string {
  if (!url.endsWith('*')) return url.replaceAll('::', ':');
  return `${url.slice(0, -1)}${(request.params as { '*': string })['*']}`;
}
