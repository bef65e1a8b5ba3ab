/**
 * The reusable A2A layer any team puts in front of its own handlers: give it a Fastify instance,
 * a source of bundles, a JwtVerifier for a2a tokens and a HandlerRegistry; it serves the cards,
 * the JSON-RPC and HTTP+JSON bindings, routing, enforcement at execution, extensions, versions,
 * usage counting and the tool gateway.
 */
import type { FastifyInstance } from 'fastify';
import type { JwtVerifier } from '@cp/auth';
import type { Classifier } from '@cp/capabilities';
import { NO_A2A_OBSERVER, type A2AObserver } from '../observability/observer';
import type { ToolGateway } from '../tools/tool-gateway';
import { A2AAuthenticator } from './a2a-authenticator';
import { registerA2ARoutes } from './a2a-routes';
import { A2AService, DEFAULT_A2A_LIMITS, type A2ALimits, type A2ALog, type ClarificationSink, type UsageSink } from './a2a-service';
import { registerCardRoute } from './card-route';
import { registerCatalogRoute, type CatalogRouteOptions } from './catalog-route';
import type { ExecutionLimits } from './execution-limits';
import type { HandlerRegistry } from './handler-registry';
import type { ServedBundle } from './served-bundle';
import { PushService, type PushServiceDeps } from './push/push-service';
import { notifyingEvents, type TaskEvents } from './task-events';
import type { TaskStore } from './task-store';
import type { UpstreamGateway } from './upstream/upstream-gateway';

export interface A2AServerOptions {
  bundle: () => ServedBundle | undefined;
  verifier: JwtVerifier;
  handlers: HandlerRegistry;
  tools: ToolGateway;
  log: A2ALog;
  usage?: UsageSink;
  classifier?: Classifier;
  /** Where tasks live: RedisTaskStore on nodes (shared by replicas), InMemoryTaskStore in unit tests. */
  tasks: TaskStore;
  /** How task updates reach streams: RedisTaskEvents on nodes, InMemoryTaskEvents in unit tests. */
  events: TaskEvents;
  limits?: Partial<A2ALimits>;
  /** Generic limits around handlers; pass one with a RedisBudgetStore to enforce cost_class budgets. */
  executionLimits?: ExecutionLimits;
  /** Where resolved clarifications go (ADR 0094). */
  clarifications?: ClarificationSink;
  /** Paths of the interfaces the card lists (default /a2a/jsonrpc and /a2a/rest). */
  jsonRpcPath?: string;
  restBase?: string;
  maxBodyBytes?: number;
  cardMaxAgeSeconds?: number;
  /** Metrics (NodeMetrics); absent: nothing is counted. */
  observer?: A2AObserver;
  /** Push notifications (served when the card declares them): config store and delivery (ADR 0162). */
  push?: Omit<PushServiceDeps, 'bundle' | 'tasks' | 'log'>;
  /** The node's AI Catalog at /.well-known/ai-catalog.json (ADR 0250); absent: not served. */
  catalog?: CatalogRouteOptions;
  /** The gateway to upstream agents (ADR 0230): capabilities whose manifest names an upstream are forwarded. */
  upstreams?: UpstreamGateway;
}

export interface A2AServer {
  service: A2AService;
  push?: PushService;
  tasks: TaskStore;
  events: TaskEvents;
}

export function registerA2AServer(app: FastifyInstance, options: A2AServerOptions): A2AServer {
  const { tasks } = options;
  const limits = { ...DEFAULT_A2A_LIMITS, ...options.limits };
  const observer = options.observer ?? NO_A2A_OBSERVER;
  const push = options.push && new PushService({ ...options.push, bundle: options.bundle, tasks, log: options.log });
  // Every update produced on this node is also handed to push delivery (once: events from other replicas are theirs).
  const events = push ? notifyingEvents(options.events, (taskId, event) => push.notify(taskId, event)) : options.events;
  const service = new A2AService({
    bundle: options.bundle,
    handlers: options.handlers,
    tasks,
    events,
    limits,
    tools: options.tools,
    usage: options.usage,
    classifier: options.classifier,
    executionLimits: options.executionLimits,
    clarifications: options.clarifications,
    push,
    log: options.log,
    observer,
    upstreams: options.upstreams,
  });
  registerCardRoute(app, options.bundle, options.cardMaxAgeSeconds ?? 60, observer);
  const authenticator = new A2AAuthenticator(options.verifier);
  if (options.catalog) registerCatalogRoute(app, options.bundle, authenticator, options.catalog);
  registerA2ARoutes(app, {
    service,
    authenticator,
    jsonRpcPath: options.jsonRpcPath ?? '/a2a/jsonrpc',
    restBase: options.restBase ?? '/a2a/rest',
    maxBodyBytes: options.maxBodyBytes ?? 1_048_576,
    maxJsonDepth: limits.maxJsonDepth,
    log: options.log,
    observer,
    push,
  });
  return { service, tasks, events: options.events, push };
}
