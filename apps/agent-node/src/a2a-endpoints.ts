/**
 * Puts the node-sdk's A2A layer on this app's Fastify instance as raw routes (no Nest pipeline on
 * the card path), wired to NodeSync's current bundle, the finance handlers, the usage reporter
 * and the tool gateway.
 */
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { a2aVerifier } from '@cp/auth';
import { AppConfigToken, type AppConfig } from '@cp/common';
import {
  EmbeddingsClassifier,
  HandlerRegistry,
  HttpClarificationSink,
  HttpTokenExchanger,
  NodeSync,
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
    @Inject(AppConfigToken) private readonly config: AppConfig,
    @Inject(NodeSync) private readonly sync: NodeSync,
    @Inject(UsageReporter) private readonly usage: UsageReporter,
    @Inject(NodeIdentityToken) private readonly identity: NodeIdentity,
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
    this.server = registerA2AServer(app, {
      bundle: () => this.sync.current(),
      verifier: a2aVerifier(this.config),
      handlers: registerFinanceHandlers(new HandlerRegistry()),
      tools,
      log,
      usage: this.usage,
      // The semantic router when the deployment configures an embeddings endpoint (ADR 0093).
      classifier: this.config.EMBEDDINGS_URL
        ? new EmbeddingsClassifier({
            url: this.config.EMBEDDINGS_URL,
            model: this.config.EMBEDDINGS_MODEL,
            apiKey: this.config.EMBEDDINGS_API_KEY,
            timeoutMs: this.config.EMBEDDINGS_TIMEOUT_MS,
            log,
          })
        : undefined,
      clarifications: new HttpClarificationSink(this.config.CONTROL_PLANE_URL, () => identity.nodeToken, log),
      jsonRpcPath: JSON_RPC_PATH,
      restBase: REST_BASE,
      maxBodyBytes: this.config.MAX_BODY_BYTES,
    });
  }
}
