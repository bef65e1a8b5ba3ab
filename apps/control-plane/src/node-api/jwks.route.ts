import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { InjectConfig, JWKS_PATH, type AppConfig } from '@cp/common';
import { SigningKeys } from '@cp/sync';

/**
 * GET /.well-known/jwks.json: the public keys of the key ring (active, next, retired; ADR 0130).
 * Public, no token: it holds public keys only. Agent nodes and tools pin this URL in their
 * configuration (SIGNING_JWKS_URL); nothing they verify can point them elsewhere.
 */
@Injectable()
export class JwksRoute implements OnModuleInit {
  constructor(
    private readonly host: HttpAdapterHost,
    private readonly keys: SigningKeys,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const fastify = this.host.httpAdapter.getInstance<FastifyInstance>();
    const cacheControl = `public, max-age=${Math.min(this.config.SIGNING_JWKS_CACHE_SECONDS, 300)}`;
    fastify.get(JWKS_PATH, (_request, reply) =>
      reply.header('cache-control', cacheControl).type('application/jwk-set+json').send(JSON.stringify(this.keys.jwks())),
    );
  }
}
