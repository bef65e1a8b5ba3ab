/**
 * The running product for the security suite: the whole control plane (GraphQL admin API, node
 * API, token exchange) on its own database and Redis prefix, seeded with the worked example, and
 * an agent node synced from it. Hostile callers talk to both over real HTTP.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import jwt from 'jsonwebtoken';
import { mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { NodeSync } from '@cp/node-sdk';
import { AppModule } from '../../../apps/control-plane/src/app.module';
import { AgentNodeModule } from '../../../apps/agent-node/src/agent-node.module';
import { bootApp } from '../../support/boot';
import { testConfig } from '../../support/config';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { freePort } from '../../support/free-port';

export const AGENT = 'finance-agent';

export interface SecurityStack {
  cpUrl: string;
  nodeUrl: string;
  cpConfig: AppConfig;
  nodeConfig: AppConfig;
  prisma: PrismaService;
  cp: NestFastifyApplication;
  node: NestFastifyApplication;
  close(): Promise<void>;
}

/** `seed`: the worked example's options (e.g. `protocol` to serve A2A 0.3 beside 1.0). */
export async function startSecurityStack(
  label: string,
  overrides: Record<string, string> = {},
  seed: Omit<Parameters<typeof seedWhenEmpty>[1], 'agentNodeUrl'> = {},
): Promise<SecurityStack> {
  const db: TestDatabase = await createTestDatabase(`sec_${label}`);
  const dir = await mkdtemp(join(tmpdir(), `security-${label}-`));
  const prefix = `test:sec-${label}:${process.pid}:${randomBytes(3).toString('hex')}:`;
  const cpConfig = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix, ...overrides });
  const { app: cp, url } = await bootApp(AppModule, cpConfig);
  const cpUrl = url.replace('[::1]', '127.0.0.1');
  const port = await freePort();
  const nodeUrl = `http://127.0.0.1:${port}`;
  const prisma = cp.get(PrismaService);
  await seedWhenEmpty(prisma, { ...seed, agentNodeUrl: nodeUrl });
  const nodeConfig = testConfig({
    DATABASE_URL: db.url,
    REDIS_KEY_PREFIX: prefix,
    CONTROL_PLANE_URL: cpUrl,
    AGENT_ID: AGENT,
    NODE_ID: `sec-${label}-node`,
    NODE_TOKEN: mintNodeToken(cpConfig, AGENT),
    NODE_CACHE_DIR: dir,
    USAGE_FLUSH_INTERVAL_MS: '3600000',
    MAX_BODY_BYTES: '65536',
    ...overrides,
  });
  const { app: node } = await bootApp(AgentNodeModule, nodeConfig, { port });
  const sync = node.get(NodeSync);
  const deadline = Date.now() + 10_000;
  while (!sync.current() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (!sync.current()) throw new Error('the agent node did not sync its bundle');
  return {
    cpUrl,
    nodeUrl,
    cpConfig,
    nodeConfig,
    prisma,
    cp,
    node,
    async close() {
      await node.close();
      await cp.close();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, checked by assertions
export type Json = Record<string, any>;

/** A JSON-RPC call to the node's A2A endpoint. */
export async function a2aRpc(
  nodeUrl: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Json }> {
  const res = await fetch(`${nodeUrl}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Json) : {} };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The node's own subject (its token's `sub`): what an exchanged upstream token names as `act.sub`. */
export const nodeSubject = (stack: SecurityStack): string => (jwt.decode(stack.nodeConfig.NODE_TOKEN!) as Json).sub as string;
