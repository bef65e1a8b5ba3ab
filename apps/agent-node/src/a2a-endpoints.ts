/**
 * Puts the node-sdk's A2A layer on this app's Fastify instance as raw routes (no Nest pipeline on
 * the card path), wired to NodeSync's current bundle, the finance handlers, the usage reporter,
 * the tool gateway and the Redis task store (finance-a2a.ts).
 */
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { closeRedis, connectRedis, createRedis, InjectConfig, InjectRedis, type AppConfig, type RedisClient } from '@cp/common';
import {
  ChatCompletionsClassifier,
  EmbeddingsClassifier,
  SemanticChoicesClassifier,
  HandlerRegistry,
  HttpClarificationSink,
  NodeMetrics,
  NodeSync,
  UpstreamProbe,
  UsageReporter,
  type A2AServer,
} from '@cp/node-sdk';
import type { Classifier } from '@cp/capabilities';
import { registerFinanceA2A } from './finance-a2a';
import { NodeIdentityToken, type NodeIdentity } from './node-identity';
import { startUpstreamProbing } from './upstream-probing';

export { JSON_RPC_PATH, REST_BASE } from './finance-a2a';

/** Handlers other than the native finance ones (the AgentExecutor example provides its own). */
export const AgentHandlersToken = Symbol('AGENT_HANDLERS');

@Injectable()
export class A2AEndpoints implements OnModuleInit, OnApplicationShutdown {
  server?: A2AServer;
  private subscriber?: RedisClient;
  private taskConnection?: RedisClient;
  private pushWorker?: Redis;
  private probe?: UpstreamProbe;

  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @InjectConfig() private readonly config: AppConfig,
    @Inject(NodeSync) private readonly sync: NodeSync,
    @Inject(UsageReporter) private readonly usage: UsageReporter,
    @Inject(NodeIdentityToken) private readonly identity: NodeIdentity,
    @InjectRedis() private readonly redis: RedisClient,
    @Inject(NodeMetrics) private readonly metrics: NodeMetrics,
    @Optional() @Inject(AgentHandlersToken) private readonly handlers?: HandlerRegistry,
  ) {}

  onModuleInit(): void {
    const logger = new Logger('A2A');
    const identity = this.identity;
    const log = {
      info: (f: Record<string, unknown>, m: string) => logger.log({ ...f, msg: m }),
      warn: (f: Record<string, unknown>, m: string) => logger.warn({ ...f, msg: m }),
      error: (f: Record<string, unknown>, m: string) => logger.error({ ...f, msg: m }),
    };
    this.subscriber = createRedis(this.config, 'a2a-task-events');
    // Task saves on a pipelined connection of their own (ADR 0330); every other command stays on the shared one.
    this.taskConnection = connectRedis(this.config, 'a2a-tasks', { autoPipelining: true });
    // BullMQ's worker blocks on Redis: a connection of its own that never gives up a command.
    this.pushWorker = new Redis(this.config.REDIS_URL, { connectionName: 'a2a-push-worker', maxRetriesPerRequest: null });
    this.server = registerFinanceA2A(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), this.config, {
      bundle: () => this.sync.current(),
      redis: this.redis,
      taskRedis: this.taskConnection,
      subscriber: this.subscriber,
      pushWorker: this.pushWorker,
      handlers: this.handlers,
      nodeToken: () => identity.nodeToken,
      // The inventory goes out at register (NodeSync starts after every module's init) and every heartbeat.
      useHandlers: (inventory) => this.sync.useHandlers(inventory),
      onBudgetUnavailable: (e) => logger.warn({ err: e.message, msg: 'budget check unavailable; call let through' }),
      usage: this.usage,
      log,
      classifier: nodeClassifier(this.config, log),
      clarifications: new HttpClarificationSink(this.config.CONTROL_PLANE_URL, () => identity.nodeToken, log),
      observer: this.metrics,
    });
    // Upstream cards fetched after each revision and periodically; reported with the heartbeat (ADR 0275).
    this.probe = startUpstreamProbing(this.sync, this.config, log);
    const service = this.server.service;
    this.metrics.countStreams(() => service.openStreams);
  }

  async onApplicationShutdown(): Promise<void> {
    this.probe?.stop();
    await this.server?.push?.close();
    if (this.pushWorker) await closeRedis(this.pushWorker);
    if (this.subscriber) await closeRedis(this.subscriber);
    if (this.taskConnection) await closeRedis(this.taskConnection);
  }
}

/**
 * The node's text classifier: the chat-completions router when configured (ADR 0291), falling back
 * to the embeddings router when that is configured too (ADR 0093), else to the lexical one; unset
 * both and the lexical router decides (route()'s default). With EMBEDDINGS_ROLE=choices the
 * embeddings endpoint does not decide: the lexical router does, and the endpoint helps choose a
 * clarification's choices (ADR 0361); with `second-opinion` it may also turn a route into a
 * clarification (ADR 0362).
 */
export function nodeClassifier(
  config: AppConfig,
  log: { warn(fields: Record<string, unknown>, message: string): void },
): Classifier | undefined {
  const ranker = config.EMBEDDINGS_URL
    ? new EmbeddingsClassifier({
        url: config.EMBEDDINGS_URL,
        model: config.EMBEDDINGS_MODEL,
        apiKey: config.EMBEDDINGS_API_KEY,
        timeoutMs: config.EMBEDDINGS_TIMEOUT_MS,
        log,
      })
    : undefined;
  const embeddings =
    ranker && config.EMBEDDINGS_ROLE !== 'route'
      ? new SemanticChoicesClassifier({
          ranker,
          secondOpinion: config.EMBEDDINGS_ROLE === 'second-opinion' ? { margin: config.EMBEDDINGS_VETO_MARGIN } : undefined,
        })
      : ranker;
  if (!config.CHAT_ROUTER_URL) return embeddings;
  return new ChatCompletionsClassifier({
    url: config.CHAT_ROUTER_URL,
    model: config.CHAT_ROUTER_MODEL,
    apiKey: config.CHAT_ROUTER_API_KEY,
    timeoutMs: config.CHAT_ROUTER_TIMEOUT_MS,
    output: config.CHAT_ROUTER_OUTPUT,
    coolDownMs: config.CHAT_ROUTER_COOL_DOWN_MS,
    maxCached: config.CHAT_ROUTER_CACHE_ENTRIES,
    fallback: embeddings,
    log,
  });
}
