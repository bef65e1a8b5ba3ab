/**
 * The finance agent's A2A node (NodeSync + the app's own A2A wiring + Redis task store) in a
 * separate OS process: real replicas, real restarts. Parent side: `spawnA2ANode(env, port)`;
 * the child is this same file run by tsx with A2A_NODE_CHILD set. Stats travel over fork IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { connectRedis, createRedis, loadConfig } from '@cp/common';
import { NodeSync } from '../../libs/node-sdk/src/node-sync';
import { registerFinanceA2A } from '../../apps/agent-node/src/finance-a2a';

export interface A2ANodeStats {
  openStreams: number;
  listeners: number;
  rss: number;
  heapUsed: number;
}

export interface A2ANodeProcess {
  readonly pid: number;
  readonly url: string;
  stats(): Promise<A2ANodeStats>;
  /** SIGKILL: no graceful anything, like a crashed node. */
  kill(): Promise<void>;
  readonly exited: boolean;
}

interface ChildSpec {
  env: Record<string, string>;
  port: number;
  heapMb?: number;
  /** Run push delivery (a BullMQ worker of its own), as the app does. */
  push?: boolean;
}

export async function spawnA2ANode(env: Record<string, string>, port: number, heapMb = 256, push = false): Promise<A2ANodeProcess> {
  const spec: ChildSpec = { env, port, heapMb, push };
  const child: ChildProcess = fork(__filename, [], {
    execArgv: ['--import', 'tsx', `--max-old-space-size=${heapMb}`],
    env: { ...process.env, A2A_NODE_CHILD: JSON.stringify(spec) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  let next = 0;
  const waiting = new Map<number, (s: A2ANodeStats) => void>();
  child.on('message', (m: { id?: number; stats?: A2ANodeStats }) => {
    if (m.id !== undefined && m.stats) waiting.get(m.id)?.(m.stats);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('A2A node process did not start within 60 s')), 60_000);
    child.on('message', (m: { ready?: boolean }) => {
      if (m.ready) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`A2A node process exited with ${code} before it started`)));
  });
  return {
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    get exited() {
      return exited;
    },
    stats: () =>
      new Promise<A2ANodeStats>((resolve, reject) => {
        const id = ++next;
        const timer = setTimeout(() => reject(new Error('A2A node process did not answer')), 5000);
        waiting.set(id, (s) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(s);
        });
        child.send({ id });
      }),
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

async function runChild(spec: ChildSpec): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...spec.env });
  const sync = new NodeSync({
    controlPlaneUrl: config.CONTROL_PLANE_URL,
    nodeToken: config.NODE_TOKEN!,
    agentId: config.AGENT_ID,
    nodeId: config.NODE_ID ?? `node-${process.pid}`,
    cacheDir: config.NODE_CACHE_DIR,
    redisUrl: config.REDIS_URL,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
  });
  const app = Fastify({ forceCloseConnections: true });
  const quiet = () => undefined;
  const server = registerFinanceA2A(app, config, {
    bundle: () => sync.current(),
    redis: createRedis(config, 'a2a-commands'),
    // As the agent node app wires it (ADR 0330).
    taskRedis: connectRedis(config, 'a2a-tasks', { autoPipelining: true }),
    subscriber: createRedis(config, 'a2a-task-events'),
    pushWorker: spec.push ? new Redis(config.REDIS_URL, { connectionName: 'a2a-push-worker', maxRetriesPerRequest: null }) : undefined,
    nodeToken: () => config.NODE_TOKEN!,
    log: { info: quiet, warn: quiet, error: (f, m) => console.error(m, f) },
  });
  process.on('message', (m: { id: number }) => {
    const mem = process.memoryUsage();
    process.send!({
      id: m.id,
      stats: { openStreams: server.service.openStreams, listeners: server.events.listenerCount, rss: mem.rss, heapUsed: mem.heapUsed },
    });
  });
  process.on('disconnect', () => process.exit(0));
  await sync.start();
  const deadline = Date.now() + 30_000;
  while (!sync.current() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (!sync.current()) throw new Error('no bundle applied within 30 s');
  await app.listen({ port: spec.port, host: '127.0.0.1' });
  process.send!({ ready: true });
}

if (process.env.A2A_NODE_CHILD) {
  runChild(JSON.parse(process.env.A2A_NODE_CHILD) as ChildSpec).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
