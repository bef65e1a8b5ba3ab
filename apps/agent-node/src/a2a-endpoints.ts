/**
 * Puts the node-sdk's A2A layer on this app's Fastify instance as raw routes (no Nest pipeline on
 * the card path), wired to NodeSync's current bundle, the finance handlers, the usage reporter
 * and the tool gateway.
 */
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { a2aVerifier } from '@cp/auth';
import type { Redis } from 'ioredis';
import { InjectConfig, InjectRedis, type AppConfig } from '@cp/common';
import {
  ExecutionLimits,
  HandlerRegistry,
  HttpTokenExchanger,
  NodeSync,
  RedisBudgetStore,
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

@Injectable()
export class A2AEndpoints implements OnModuleInit {
  server?: A2AServer;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @InjectConfig() private readonly config: AppConfig,
    @Inject(NodeSync) private readonly sync: NodeSync,
    @Inject(UsageReporter) private readonly usage: UsageReporter,
    @Inject(NodeIdentityToken) private readonly identity: NodeIdentity,
    @InjectRedis() private readonly redis: Redis,
  ) {}

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
    const handlers = registerFinanceHandlers(new HandlerRegistry());
    // The inventory goes out at register (NodeSync starts after every module's init) and every heartbeat.
    this.sync.useHandlers(() => handlers.inventory());
    this.server = registerA2AServer(app, {
      bundle: () => this.sync.current(),
      verifier: a2aVerifier(this.config),
      handlers,
      // cost_class budgets are shared by every replica of the agent through Redis.
      limits: new ExecutionLimits({
        budgets: new RedisBudgetStore(this.redis, this.config.REDIS_KEY_PREFIX),
        onBudgetUnavailable: (e) => logger.warn({ err: e.message, msg: 'budget check unavailable; call let through' }),
      }),
      tools,
      log,
      usage: this.usage,
      jsonRpcPath: JSON_RPC_PATH,
      restBase: REST_BASE,
      maxBodyBytes: this.config.MAX_BODY_BYTES,
    });
  }
}
