import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answerOnArrival, InjectConfig, recordPrincipal, type AppConfig } from '@cp/common';
import { BUNDLE_DELTA_BASE_HEADER, NODE_BUNDLE_DELTA_TYPE, nodeApiPaths, parseBundleEtag } from '@cp/node-protocol';
import { BundleCache, BundleDeltas, RevisionReads, SyncError } from '@cp/sync';
import { AuthError } from '@cp/auth';
import { NodeApiError, NodeApiErrorCode } from './node-api.errors';
import { NodeHttpError } from '../node-auth/node-http-error';
import { nodeApiAnswer, sendNodeApiAnswer } from '../node-auth/node-api-answer';
import { NodeAuthenticator } from '../node-auth/node-authenticator';

/**
 * GET /node/v1/bundle: the bundle of the token's agent, at its current revision. Every node
 * revalidates here (invalidations and polls), so it is a bare Fastify route answered on arrival,
 * outside Nest's hooks, middleware and guard/interceptor/pipe pipeline (ADR 0193): a warm 304 costs
 * a memoized token check, a share of one Redis GET (concurrent revalidations of an agent share it,
 * on a pipelined connection of the route's own, ADR 0195) and a string compare (docs/performance.md).
 *
 * A node that names the bundle it serves (`bundle-delta-base: <its ETag>`) gets a delta to the
 * current one when that is available and smaller (ADR 0155); any other node gets the full bundle.
 * Past NODE_BUNDLE_MAX_IN_FLIGHT full bundles being sent at once, and while Redis is away, it
 * answers 503 with a jittered Retry-After instead of queueing (ADR 0156); 304s and deltas, a few
 * kilobytes answered from memory, are never shed for load (ADR 0157).
 */
@Injectable()
export class NodeBundleRoute implements OnModuleInit {
  private readonly logger = new Logger('NodeApi');
  private readonly maxInFlight: number;
  private readonly retryAfter: number;
  private inFlight = 0;
  /** Answers refused for load (503 + Retry-After): exposed for tests and benchmarks. */
  readonly stats = { shed: 0, deltas: 0, full: 0 };

  constructor(
    private readonly host: HttpAdapterHost,
    private readonly auth: NodeAuthenticator,
    private readonly bundles: BundleCache,
    private readonly deltas: BundleDeltas,
    private readonly reads: RevisionReads,
    @InjectConfig() config: AppConfig,
  ) {
    this.maxInFlight = config.NODE_BUNDLE_MAX_IN_FLIGHT;
    this.retryAfter = config.NODE_BUNDLE_RETRY_AFTER_SECONDS;
  }

  onModuleInit(): void {
    const fastify = this.host.httpAdapter.getInstance<FastifyInstance>();
    // Answered from the adapter's first request hook: Nest's request hooks and its middleware
    // engine have nothing to do here and cost a 304 a share of its time (ADR 0193).
    answerOnArrival(fastify, nodeApiPaths.bundle, (request, reply) => this.handle(request, reply));
  }

  async handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    try {
      const node = await this.auth.authenticate(request.headers.authorization);
      recordPrincipal(request.raw, 'node', node.subject);
      const base = request.headers[BUNDLE_DELTA_BASE_HEADER];
      if (base !== undefined && (typeof base !== 'string' || !parseBundleEtag(base))) {
        throw new NodeApiError(
          NodeApiErrorCode.InvalidDeltaBase,
          `${BUNDLE_DELTA_BASE_HEADER}: expected the ETag of a bundle ("r<revision>-<64 hex>")`,
        );
      }
      if (!this.storeConnected()) return await this.shed(reply, 'the sync store (Redis) is reconnecting');
      // The revision key is read on the route's own pipelined connection, shared by concurrent reads (ADR 0195).
      const bundle = await this.bundles.current(node.agentId, this.reads);
      if (!bundle) throw new NodeApiError(NodeApiErrorCode.AgentNotFound, `agent "${node.agentId}" not found`);
      reply.header('etag', bundle.etag).header('cache-control', 'no-cache');
      if (matches(request.headers['if-none-match'], bundle.etag)) return await reply.code(304).send();
      const delta = base === undefined ? null : await this.deltas.from(base, bundle);
      if (delta !== null) {
        // A change reaching a fleet: every node asks at once for the same few kilobytes (ADR 157).
        this.stats.deltas++;
        return await reply.code(200).header(BUNDLE_DELTA_BASE_HEADER, base!).type(NODE_BUNDLE_DELTA_TYPE).send(delta);
      }
      // Full bundles are what a storm costs (megabytes in flight each): counted until the body has left.
      if (this.inFlight >= this.maxInFlight) return await this.shed(reply, 'the control plane is busy sending full bundles to other nodes');
      this.inFlight++;
      reply.raw.once('close', () => this.inFlight--);
      this.stats.full++;
      return await reply.code(200).type('application/json; charset=utf-8').send(bundle.body);
    } catch (error) {
      // Redis went away mid-request (a command failed while it reconnects): the same 503 as before it.
      if (!(error instanceof NodeHttpError) && !(error instanceof AuthError) && redisAway(error, this.storeConnected())) {
        return this.shed(reply, 'the sync store (Redis) is reconnecting');
      }
      const mapped = error instanceof SyncError ? new NodeApiError(NodeApiErrorCode.BundleUnavailable, error.message) : error;
      const answer = nodeApiAnswer(mapped, this.logger);
      if (answer.status === 503 && !answer.headers['retry-after']) answer.headers['retry-after'] = this.jitteredRetryAfter();
      return sendNodeApiAnswer(reply, answer);
    }
  }

  /** Both connections this route reads through are ready: the shared one and the revision reads'. */
  private storeConnected(): boolean {
    return this.bundles.connected() && this.reads.connected();
  }

  /** 503 + Retry-After between RETRY_AFTER and twice it, so the retries of a storm spread out. */
  private shed(reply: FastifyReply, why: string): FastifyReply {
    this.stats.shed++;
    const error = new NodeApiError(NodeApiErrorCode.Overloaded, `${why}; retry after the Retry-After delay`);
    return sendNodeApiAnswer(reply, { status: 503, headers: { 'retry-after': this.jitteredRetryAfter() }, body: error.toJSON() });
  }

  private jitteredRetryAfter(): string {
    return String(this.retryAfter + Math.floor(Math.random() * (this.retryAfter + 1)));
  }
}

/** ioredis's errors while the connection is down (commands past maxRetriesPerRequest, closed or refused sockets). */
function redisAway(error: unknown, connected: boolean): boolean {
  if (!connected) return true;
  const e = error as Error | undefined;
  return (
    e?.name === 'MaxRetriesPerRequestError' ||
    /Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|EPIPE/.test(e?.message ?? '')
  );
}

/** If-None-Match: a list of ETags or `*` (RFC 9110 §13.1.2; weak comparison). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag || header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
