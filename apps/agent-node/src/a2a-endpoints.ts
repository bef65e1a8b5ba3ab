/**
 * Puts the node-sdk's A2A layer on this app's Fastify instance as raw routes (no Nest pipeline on
 * the card path), wired to NodeSync's current bundle, the finance handlers, the usage reporter
 * and the tool gateway.
 */
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { a2aVerifier } from '@cp/auth';
import { AppConfigToken, createRedis, RedisToken, type AppConfig } from '@cp/common';
import {
  HandlerRegistry,
  HttpTokenExchanger,
  NodeSync,
  RedisTaskEvents,
  RedisTaskStore,
  registerA2AServer,
  ToolGateway,
  UsageReporter,
  type A2AServer,
} from '@cp/node-sdk';
import { createErpTool, ERP_TOOL } from './finance/erp-tool';
import { registerFinanceHandlers } from './finance/finance-handlers';
import { NodeIdentityToken, type NodeIdentity } from './node-identity';

/** Interface paths the finance card lists (financeAgentExample: `${base}/a2a/jsonrpc`, `${base}/a2a/rest`). */
export const JSON_RPC_PATH = '/a2a/jsonrpc';
export const REST_BASE = '/a2a/rest';

/**
 * Tasks live in Redis under the agent's own prefix, so every replica of this agent's node serves
 * the same tasks and streams (and a restart loses none); another agent's nodes never see them.
 */
@Injectable()
export class A2AEndpoints implements OnModuleInit, OnApplicationShutdown {
  server?: A2AServer;
  private subscriber?: Redis;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(AppConfigToken) private readonly config: AppConfig,
    @Inject(NodeSync) private readonly sync: NodeSync,
    @Inject(UsageReporter) private readonly usage: UsageReporter,
    @Inject(NodeIdentityToken) private readonly identity: NodeIdentity,
    @Inject(RedisToken) private readonly redis: Redis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  onModuleInit(): void {
    const app = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const logger = new Logger('A2A');
    const log = {
      info: (f: Record<string, unknown>, m: string) => logger.log({ ...f, msg: m }),
      warn: (f: Record<string, unknown>, m: string) => logger.warn({ ...f, msg: m }),
      error: (f: Record<string, unknown>, m: string) => logger.error({ ...f, msg: m }),
    };
    const identity = this.identity;
    const tools = new ToolGateway(
      new HttpTokenExchanger(this.config.CONTROL_PLANE_URL, () => identity.nodeToken),
      new Map([[ERP_TOOL, createErpTool(this.config)]]),
      log,
    );
    const c = this.config;
    const prefix = `${c.REDIS_KEY_PREFIX}agent:${c.AGENT_ID}:`;
    this.subscriber = createRedis(c, 'a2a-task-events');
    this.server = registerA2AServer(app, {
      tasks: new RedisTaskStore(this.redis, prefix, {
        maxTaskBytes: c.A2A_TASK_MAX_BYTES,
        maxOwnerBytes: c.A2A_OWNER_MAX_BYTES,
        retentionMs: c.A2A_TASK_RETENTION_SECONDS * 1000,
      }),
      events: new RedisTaskEvents(this.redis, this.subscriber, prefix),
      limits: {
        maxJsonDepth: c.A2A_MAX_JSON_DEPTH,
        maxPartBytes: c.A2A_PART_MAX_BYTES,
        historyPartMaxBytes: c.A2A_HISTORY_PART_MAX_BYTES,
        maxStreams: c.A2A_MAX_STREAMS,
      },
      bundle: () => this.sync.current(),
      verifier: a2aVerifier(this.config),
      handlers: registerFinanceHandlers(new HandlerRegistry()),
      tools,
      log,
      usage: this.usage,
      jsonRpcPath: JSON_RPC_PATH,
      restBase: REST_BASE,
      maxBodyBytes: this.config.MAX_BODY_BYTES,
    });
  }
}
