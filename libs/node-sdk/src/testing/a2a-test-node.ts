/**
 * The A2A layer as specs build it, so each spec states only what it is about: an in-memory task
 * store and event bus unless a spec brings its own (the Redis ones have their own specs), a silent
 * log, a tool gateway whose token exchange is stubbed (the control plane is outside these specs),
 * and for HTTP specs a real Fastify server on a free loopback port with the test config's verifier.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { a2aVerifier } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { buildNodeBundle, financeAgentExample, type CapabilityManifest } from '@cp/capabilities';
import { ActiveBundle } from '../active-bundle';
import { A2AService, type A2AServiceDeps } from '../a2a/a2a-service';
import { registerA2AServer, type A2AServer, type A2AServerOptions } from '../a2a/a2a-server';
import type { HandlerResult } from '../a2a/handler-registry';
import type { A2ALog } from '../a2a/request-context';
import { InMemoryTaskEvents } from '../a2a/task-events';
import { InMemoryTaskStore } from '../a2a/task-store';
import { ToolGateway } from '../tools/tool-gateway';

export const silentLog: A2ALog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The config specs mint and verify caller tokens with (`mintA2AToken(testConfig, …)`). */
export const testConfig = loadConfig({ NODE_ENV: 'test' });

/** A tool gateway whose exchange hands out a fixed token, or refuses when `refuse` (no tools in the spec). */
export function stubbedTools(refuse = false): ToolGateway {
  const exchange = refuse
    ? () => Promise.reject(new Error('no tools'))
    : async () => ({ accessToken: 't', expiresAt: Date.now() + 60_000, scopes: [] });
  return new ToolGateway({ exchange }, new Map(), silentLog);
}

/** A handler answering at once with one data artifact. */
export const completedWith =
  (data: Record<string, unknown> = { ok: true }) =>
  async (): Promise<HandlerResult> => ({ state: 'completed', artifacts: [{ parts: [{ data }] }] });

/** The finance example agent's bundle (revision 1), with its manifests replaced when given. */
export function financeBundle(manifests: CapabilityManifest[] = financeAgentExample().manifests): ActiveBundle {
  const { agent } = financeAgentExample();
  return new ActiveBundle(buildNodeBundle({ agentId: 'finance-agent', revision: 1, agent, manifests, previewTenants: [] }));
}

type Defaulted = 'tasks' | 'events' | 'tools' | 'log';

/** An A2AService with the defaults above for whatever `deps` leaves out. */
export function testA2AService(deps: Omit<A2AServiceDeps, Defaulted> & Partial<Pick<A2AServiceDeps, Defaulted>>): A2AService {
  return new A2AService({
    tasks: new InMemoryTaskStore(),
    events: new InMemoryTaskEvents(),
    tools: stubbedTools(true),
    log: silentLog,
    ...deps,
  });
}

export interface TestA2ANode extends A2AServer {
  app: FastifyInstance;
  /** http://127.0.0.1:<port>, no trailing slash. */
  url: string;
}

/** registerA2AServer on a Fastify server listening on a free loopback port; close it with `app.close()`. */
export async function serveTestA2A(
  options: Omit<A2AServerOptions, Defaulted | 'verifier'> & Partial<Pick<A2AServerOptions, Defaulted | 'verifier'>>,
): Promise<TestA2ANode> {
  const app = Fastify({ forceCloseConnections: true });
  const server = registerA2AServer(app, {
    verifier: a2aVerifier(testConfig),
    tools: stubbedTools(),
    log: silentLog,
    tasks: new InMemoryTaskStore(),
    events: new InMemoryTaskEvents(),
    ...options,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { ...server, app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}
