/**
 * The benches' node: the agent node's A2A layer as the agent node wires it
 * (apps/agent-node/src/finance-a2a.ts: Redis task store and events, routing, limits, usage) on
 * Fastify at 127.0.0.1:`port`, serving a fixed finance-agent bundle, quiet, without usage
 * reporting. A bench runs it in a child process of its own; SIGTERM or SIGINT closes it.
 */
import Fastify from 'fastify';
import { connectRedis, loadConfig } from '@cp/common';
import type { NodeBundle } from '@cp/capabilities';
import { ActiveBundle, type HandlerRegistry } from '@cp/node-sdk';
import { registerFinanceA2A } from '../../apps/agent-node/src/finance-a2a';

export async function serveBenchA2ANode(
  port: number,
  options: { prefix: string; bundle: NodeBundle; handlers: HandlerRegistry; nodeToken: string; env?: Record<string, string> },
): Promise<void> {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    AGENT_ID: 'finance-agent',
    REDIS_KEY_PREFIX: options.prefix,
    // The partner owner makes tens of thousands of tasks in a run: room for them, and short-lived.
    A2A_OWNER_MAX_BYTES: String(1 << 30),
    A2A_TASK_RETENTION_SECONDS: '120',
    ...options.env,
  });
  const bundle = new ActiveBundle(options.bundle);
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const app = Fastify();
  registerFinanceA2A(app, config, {
    bundle: () => bundle,
    redis: connectRedis(config, 'a2a-commands'),
    // As the agent node app wires it (ADR 0330).
    taskRedis: connectRedis(config, 'a2a-tasks', { autoPipelining: process.env.BENCH_TASK_PIPELINING !== '0' }),
    subscriber: connectRedis(config, 'a2a-events'),
    nodeToken: () => options.nodeToken,
    log: silent,
    usage: { record: () => undefined },
    handlers: options.handlers,
  });
  await app.listen({ port, host: '127.0.0.1' });
  const stop = () => void app.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
