import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { NodeSync } from '@cp/node-sdk';
import { freePort } from './free-port';
import { until } from './until';

const MAIN = join(__dirname, '..', '..', 'dist/apps/control-plane/src/main.js');

/**
 * The BUILT control plane (`npm run build` first) in a process of its own, on a free port, for the
 * benchmarks: `env` on top of this process's, `log` a file for its stdout (else discarded). The
 * child is pushed to `children` before it is awaited, so the caller's cleanup kills it whatever
 * happens. Resolves with its URL and process once /healthz answers. `main`: another build's
 * main.js (a bench comparing this build with the one before it in the same run).
 */
export async function startBuiltControlPlane(
  env: Record<string, string>,
  children: ChildProcess[],
  options: { log?: string; nodeArgs?: string[]; main?: string } = {},
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.main ?? MAIN], {
    // Benchmarks measure applies, not the approval flow: no change waits for a second admin (ADR 0300).
    env: { ...process.env, APPROVAL_DEFAULT_KINDS: 'none', ...env, CONTROL_PLANE_PORT: String(port) },
    stdio: ['ignore', options.log ? openSync(options.log, 'w') : 'ignore', 'inherit'],
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await until('the control plane to answer /healthz', async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok, 120_000);
  return { url, child };
}

/**
 * One real NodeSync against a bench's control plane, started and ready: it fetches and applies
 * every revision the control plane announces, and never polls or heartbeats during a run.
 */
export async function startBenchNode(options: {
  controlPlaneUrl: string;
  nodeToken: string;
  agentId: string;
  nodeId: string;
  cacheDir: string;
  redisUrl: string;
  redisKeyPrefix: string;
}): Promise<NodeSync> {
  const node = new NodeSync({ ...options, pollIntervalMs: 120_000, heartbeatIntervalMs: 120_000, requestTimeoutMs: 60_000 });
  await node.start();
  await node.whenReady(120_000);
  return node;
}
