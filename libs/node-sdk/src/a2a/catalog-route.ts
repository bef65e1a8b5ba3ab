/**
 * GET /.well-known/ai-catalog.json on an agent node (docs/catalog.md, ADR 0250): the AI Catalog of
 * the agent this node serves, as THIS caller may see it. Anonymous: the agent when its public card
 * advertises something; an a2a token of this agent: also the extended card it is entitled to. A
 * caller who may see nothing gets the catalog of a host with no agents, through the same steps.
 * Signed by the control plane (ADR 0315): the document is a pure function of the bundle, whose
 * catalog parameters name host and publisher; `host` and `publisher` below serve only a bundle
 * built without them (unsigned). Strong ETag over the exact bytes, 304 on If-None-Match,
 * `Vary: Authorization`.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RegistrySnapshot } from '@cp/capabilities';
import { AI_CATALOG_MEDIA_TYPE, AI_CATALOG_PATH, nodeCatalog, type AiCatalogHost, type AiCatalogPublisher } from '@cp/node-protocol';
import type { A2AAuthenticator } from './a2a-authenticator';
import { A2AError } from './a2a-errors';
import { etagMatches } from './card-route';
import type { ServedBundle } from './served-bundle';

export interface CatalogRouteOptions {
  host: AiCatalogHost;
  publisher: AiCatalogPublisher;
  maxAgeSeconds?: number;
}

/** What the route reads beyond ServedBundle: ActiveBundle carries the node bundle and its snapshot. */
type WithSnapshot = ServedBundle & { bundle?: { snapshot?: RegistrySnapshot; generatedAt?: string } };

export function registerCatalogRoute(
  app: FastifyInstance,
  bundle: () => WithSnapshot | undefined,
  authenticator: A2AAuthenticator,
  options: CatalogRouteOptions,
): void {
  // Private: the body depends on the caller's token, so no shared cache may keep one caller's copy.
  const cacheControl = `private, max-age=${options.maxAgeSeconds ?? 60}`;
  const json = (reply: FastifyReply, status: number, body: object) =>
    reply.code(status).header('content-type', 'application/json').header('cache-control', 'no-store').send(JSON.stringify(body));

  app.get(AI_CATALOG_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    const served = bundle();
    const snapshot = served?.bundle?.snapshot;
    if (!served || !snapshot) return json(reply.header('retry-after', '1'), 503, { error: 'no capability bundle applied yet' });
    let caller;
    try {
      caller = (await authenticator.authenticate(request.headers)).caller;
    } catch (error) {
      // A token that is not a valid a2a token of this agent is refused, never read as anonymous.
      if (error instanceof A2AError) return json(reply, 401, { error: error.message });
      throw error;
    }
    const defaults = { host: options.host, publisher: options.publisher };
    let body: string;
    if (served.catalogFor) body = await served.catalogFor(caller, defaults);
    else {
      const updatedAt = served.bundle?.generatedAt ?? snapshot.epoch ?? new Date(0).toISOString();
      body = JSON.stringify(nodeCatalog(snapshot, { ...defaults, updatedAt }, caller));
    }
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
    void reply.header('etag', etag).header('cache-control', cacheControl).header('vary', 'Authorization');
    const inm = request.headers['if-none-match'];
    if (inm !== undefined && etagMatches(inm, etag)) return reply.code(304).send();
    return reply.header('content-type', AI_CATALOG_MEDIA_TYPE).send(body);
  });
}
