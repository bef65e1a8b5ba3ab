import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordPrincipal } from '@cp/common';
import { nodeApiPaths } from '@cp/node-protocol';
import { BundleCache, SyncError } from '@cp/sync';
import { NodeApiError, NodeApiErrorCode } from './node-api.errors';
import { nodeApiAnswer, sendNodeApiAnswer } from '../node-auth/node-api-answer';
import { NodeAuthenticator } from '../node-auth/node-authenticator';

/**
 * GET /node/v1/bundle: the bundle of the token's agent, at its current revision. Every node
 * revalidates here (invalidations and polls), so it is a bare Fastify route, outside Nest's
 * guard/interceptor/pipe pipeline: a warm 304 costs a memoized token check, one Redis GET and a
 * string compare (see docs/performance.md).
 */
@Injectable()
export class NodeBundleRoute implements OnModuleInit {
  private readonly logger = new Logger('NodeApi');

  constructor(
    private readonly host: HttpAdapterHost,
    private readonly auth: NodeAuthenticator,
    private readonly bundles: BundleCache,
  ) {}

  onModuleInit(): void {
    const fastify = this.host.httpAdapter.getInstance<FastifyInstance>();
    fastify.get(nodeApiPaths.bundle, (request, reply) => this.handle(request, reply));
  }

  async handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    try {
      const node = await this.auth.authenticate(request.headers.authorization);
      recordPrincipal(request.raw, 'node', node.subject);
      const bundle = await this.bundles.current(node.agentId);
      if (!bundle) throw new NodeApiError(NodeApiErrorCode.AgentNotFound, `agent "${node.agentId}" not found`);
      reply.header('etag', bundle.etag).header('cache-control', 'no-cache');
      if (matches(request.headers['if-none-match'], bundle.etag)) return await reply.code(304).send();
      return await reply.code(200).type('application/json; charset=utf-8').send(bundle.body);
    } catch (error) {
      const mapped = error instanceof SyncError ? new NodeApiError(NodeApiErrorCode.BundleUnavailable, error.message) : error;
      return sendNodeApiAnswer(reply, nodeApiAnswer(mapped, this.logger));
    }
  }
}

/** If-None-Match: a list of ETags or `*` (RFC 9110 §13.1.2; weak comparison). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag || header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
