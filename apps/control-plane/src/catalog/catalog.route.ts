import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AuthError, bearerToken, JwtVerifier, maxLifetimes } from '@cp/auth';
import type { Caller } from '@cp/capabilities';
import { InjectConfig, type AppConfig } from '@cp/common';
import { AI_CATALOG_MEDIA_TYPE, AI_CATALOG_PATH } from '@cp/node-protocol';
import { CatalogService } from './catalog.service';

/** Whether an If-None-Match value matches the ETag (`*`, lists, weak comparison per RFC 9110). */
function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((t) => {
    const v = t.trim();
    return (v.startsWith('W/') ? v.slice(2) : v) === etag;
  });
}

/**
 * GET /.well-known/ai-catalog.json on the control plane (docs/catalog.md): the signed catalog of
 * every agent it manages, nested by host and by team, as the caller may see it. Anonymous, or an
 * a2a token for the catalog audience (CATALOG_JWT_AUDIENCE). A bad token is refused (401), never
 * read as anonymous.
 */
@Injectable()
export class CatalogRoute implements OnModuleInit {
  private readonly verifier: JwtVerifier;

  constructor(
    private readonly host: HttpAdapterHost,
    private readonly catalogs: CatalogService,
    @InjectConfig() config: AppConfig,
  ) {
    this.verifier = new JwtVerifier({
      algorithms: config.JWT_ALGORITHMS,
      secret: config.JWT_SECRET,
      jwksFile: config.JWT_JWKS_FILE,
      jwksUrl: config.JWT_JWKS_URL,
      issuer: config.A2A_JWT_ISSUER,
      audience: config.CATALOG_JWT_AUDIENCE,
      maxLifetimeSeconds: maxLifetimes(config),
    });
  }

  onModuleInit(): void {
    this.host.httpAdapter.getInstance<FastifyInstance>().get(AI_CATALOG_PATH, (request, reply) => this.serve(request, reply));
  }

  private async serve(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    let caller: Caller = null;
    const header = request.headers.authorization;
    if (header !== undefined && header !== '') {
      try {
        const p = await this.verifier.verify(bearerToken(header), 'a2a');
        caller = { principal: p.subject, tenant: p.tenant, scopes: p.scopes };
      } catch (error) {
        const message = error instanceof AuthError ? error.message : 'the bearer token is not valid';
        return reply
          .code(401)
          .header('content-type', 'application/json')
          .header('cache-control', 'no-store')
          .send(JSON.stringify({ error: message }));
      }
    }
    const served = await this.catalogs.servedFor(caller);
    void reply.header('etag', served.etag).header('cache-control', 'private, max-age=60').header('vary', 'Authorization');
    const inm = request.headers['if-none-match'];
    if (inm !== undefined && etagMatches(inm, served.etag)) return reply.code(304).send();
    return reply.header('content-type', AI_CATALOG_MEDIA_TYPE).send(await served.body());
  }
}
