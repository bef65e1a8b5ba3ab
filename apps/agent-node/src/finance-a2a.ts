/**
 * The finance agent's A2A server on a Fastify instance, without Nest: the app (A2AEndpoints) and
 * the multi-process e2e tests run exactly this wiring. Tasks live in Redis under the agent's own
 * prefix, so every replica of this agent's node serves the same tasks and streams (and a restart
 * loses none); another agent's nodes never see them.
 */
import type { FastifyInstance } from 'fastify';
import type { RedisClient } from '@cp/common';
import { a2aVerifier } from '@cp/auth';
import type { Classifier, HandlerDeclaration } from '@cp/capabilities';
import type { AppConfig } from '@cp/common';
import { catalogIdentity } from '@cp/node-protocol';
import {
  BullPushDelivery,
  ExecutionLimits,
  RedisPushBacklog,
  RedisPushConfigStore,
  HandlerRegistry,
  HttpTokenExchanger,
  RedisBudgetStore,
  RedisTaskEvents,
  RedisTaskStore,
  registerA2AServer,
  ToolGateway,
  UpstreamGateway,
  type A2ALog,
  type A2AObserver,
  type ToolObserver,
  type ClarificationSink,
  type A2AServer,
  type ServedBundle,
  type UsageSink,
} from '@cp/node-sdk';
import { createErpTool, ERP_TOOL } from './finance/erp-tool';
import { registerFinanceHandlers } from './finance/finance-handlers';

/** Interface paths the finance card lists (financeAgentExample: `${base}/a2a/jsonrpc`, `${base}/a2a/rest`). */
export const JSON_RPC_PATH = '/a2a/jsonrpc';
export const REST_BASE = '/a2a/rest';

export interface FinanceA2ADeps {
  bundle: () => ServedBundle | undefined;
  /** Shared command connection. */
  redis: RedisClient;
  /**
   * Where tasks are saved and their events published (default: `redis`). The agent node gives it a
   * pipelined connection of its own: the saves of concurrent requests made in one event-loop turn
   * go out in one write (ADR 0330).
   */
  taskRedis?: RedisClient;
  /** A connection of its own for task-event subscriptions. */
  subscriber: RedisClient;
  nodeToken: () => string;
  log: A2ALog;
  usage?: UsageSink;
  /** Receives the handler inventory NodeSync reports at register and every heartbeat (issue 14). */
  useHandlers?: (inventory: () => HandlerDeclaration[]) => void;
  /** Called when the shared budget store cannot answer (the call is let through). */
  onBudgetUnavailable?: (error: Error) => void;
  /** The semantic router (ADR 0093); the lexical router alone when absent. */
  classifier?: Classifier;
  /** Where resolved clarifications go (ADR 0094). */
  clarifications?: ClarificationSink;
  /** Metrics of the A2A layer and the tool gateway (NodeMetrics). */
  observer?: A2AObserver & ToolObserver;
  /** A connection of its own for the push-delivery worker (maxRetriesPerRequest: null); absent: no push. */
  pushWorker?: RedisClient;
  /** The handlers (default: the finance handlers); the AgentExecutor example passes its own (ADR 0163). */
  handlers?: HandlerRegistry;
}

export function registerFinanceA2A(app: FastifyInstance, c: AppConfig, deps: FinanceA2ADeps): A2AServer {
  const prefix = `${c.REDIS_KEY_PREFIX}agent:${c.AGENT_ID}:`;
  const handlers = deps.handlers ?? registerFinanceHandlers(new HandlerRegistry());
  // The inventory NodeSync reports at register and every heartbeat: without it the node is never live in the fleet.
  deps.useHandlers?.(() => handlers.inventory());
  const taskRedis = deps.taskRedis ?? deps.redis;
  const tasks = new RedisTaskStore(taskRedis, prefix, {
    maxTaskBytes: c.A2A_TASK_MAX_BYTES,
    maxOwnerBytes: c.A2A_OWNER_MAX_BYTES,
    retentionMs: c.A2A_TASK_RETENTION_SECONDS * 1000,
  });
  const pushStore = new RedisPushConfigStore(deps.redis, prefix, c.A2A_TASK_RETENTION_SECONDS * 1000);
  // Queued bodies live beside the owner's tasks and count in the same byte budget (ADR 0202).
  const backlog = new RedisPushBacklog(
    deps.redis,
    prefix,
    { maxOwnerBytes: c.A2A_OWNER_MAX_BYTES, retentionMs: c.A2A_TASK_RETENTION_SECONDS * 1000 },
    {
      maxTaskJobs: c.A2A_PUSH_TASK_MAX_QUEUED,
      maxTaskBytes: c.A2A_PUSH_TASK_MAX_QUEUED_BYTES,
      maxOwnerJobs: c.A2A_PUSH_OWNER_MAX_QUEUED,
      maxOwnerBytes: c.A2A_PUSH_OWNER_MAX_QUEUED_BYTES,
    },
  );
  // Deliveries are queued per agent: any replica's worker may deliver any update.
  const push = deps.pushWorker && {
    store: pushStore,
    backlog,
    delivery: new BullPushDelivery({
      connection: deps.redis,
      workerConnection: deps.pushWorker,
      // A hash tag keeps each queue in one slot on Redis Cluster (BullMQ's rule; ADR 0151).
      prefix: `{${prefix}bull}`,
      attempts: c.A2A_PUSH_ATTEMPTS,
      backoffMs: c.A2A_PUSH_BACKOFF_MS,
      timeoutMs: c.A2A_PUSH_TIMEOUT_MS,
      concurrency: c.A2A_PUSH_CONCURRENCY,
      ownerConcurrency: c.A2A_PUSH_OWNER_CONCURRENCY,
      store: pushStore,
      backlog,
      allow: () => deps.bundle()?.webhookAllow ?? [],
      log: deps.log,
    }),
  };
  const exchanger = new HttpTokenExchanger(c.CONTROL_PLANE_URL, deps.nodeToken);
  // Capabilities whose manifest names an upstream are forwarded with an exchanged token (ADR 0230, 0231):
  // the caller's token and the node's credential never leave the node.
  const upstreams = new UpstreamGateway({
    exchange: (subjectToken, capabilityId) => exchanger.exchangeUpstream({ subjectToken, capabilityId }),
    allow: () => deps.bundle()?.upstreamAllow ?? [],
    log: deps.log,
  });
  return registerA2AServer(app, {
    bundle: deps.bundle,
    verifier: a2aVerifier(c),
    // Host and publisher of a bundle built without the catalog's own (ADR 0315): the bundle's win.
    catalog: catalogIdentity(c),
    handlers,
    // cost_class budgets are shared by every replica of the agent through Redis.
    executionLimits: new ExecutionLimits({
      budgets: new RedisBudgetStore(deps.redis, c.REDIS_KEY_PREFIX),
      onBudgetUnavailable: deps.onBudgetUnavailable,
    }),
    upstreams,
    tools: new ToolGateway(exchanger, new Map([[ERP_TOOL, createErpTool(c)]]), deps.log, undefined, deps.observer),
    observer: deps.observer,
    log: deps.log,
    usage: deps.usage,
    classifier: deps.classifier,
    clarifications: deps.clarifications,
    tasks,
    push,
    events: new RedisTaskEvents(taskRedis, deps.subscriber, prefix),
    limits: {
      maxJsonDepth: c.A2A_MAX_JSON_DEPTH,
      maxPartBytes: c.A2A_PART_MAX_BYTES,
      historyPartMaxBytes: c.A2A_HISTORY_PART_MAX_BYTES,
      maxStreams: c.A2A_MAX_STREAMS,
      maxStreamsPerOwner: c.A2A_MAX_STREAMS_PER_OWNER,
      maxAnonymousStreams: c.A2A_MAX_ANONYMOUS_STREAMS,
      maxStreamsPerTask: c.A2A_MAX_STREAMS_PER_TASK,
      streamIdleTimeoutMs: c.A2A_STREAM_IDLE_TIMEOUT_MS,
      streamMaxLifetimeMs: c.A2A_STREAM_MAX_LIFETIME_MS,
      streamBufferMaxBytes: c.A2A_STREAM_BUFFER_MAX_BYTES,
      streamRemoteAfterMs: c.A2A_STREAM_REMOTE_AFTER_MS,
      streamFirstEvent: c.A2A_STREAM_FIRST_EVENT,
      sendStoreAfterMs: c.A2A_SEND_STORE_AFTER_MS,
    },
    jsonRpcPath: JSON_RPC_PATH,
    restBase: REST_BASE,
    maxBodyBytes: c.MAX_BODY_BYTES,
  });
}
