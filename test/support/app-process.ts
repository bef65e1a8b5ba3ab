/**
 * One of our apps (control plane, worker) as a real OS process, started from its own `main.ts`
 * (compiled on the fly by ts-app-runner.cjs) with the environment a deployment would give it: real replicas, real crashes. The
 * parent waits for `/readyz`; `kill()` is SIGKILL (no graceful anything). Every process started
 * is killed when the test process exits, however it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

export type AppName = 'control-plane' | 'worker';

export interface AppProcess {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  readonly exited: boolean;
  /** The app's own log (pino on stdout): where an error id it answered with is explained. */
  readonly logFile: string;
  kill(): Promise<void>;
  /** SIGTERM and wait for the graceful shutdown. */
  stop(): Promise<void>;
}

const PORT_VARIABLE: Record<AppName, string> = { 'control-plane': 'CONTROL_PLANE_PORT', worker: 'WORKER_PORT' };
const everyChild = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of everyChild) c.kill('SIGKILL');
});

export async function spawnApp(app: AppName, env: Record<string, string>, label: string = app, timeoutMs = 420_000): Promise<AppProcess> {
  const port = await freePort();
  const logFile = join(tmpdir(), `${label.replace(/[^a-z0-9]+/gi, '-')}-${process.pid}-${port}.log`);
  // From source, compiled with decorator metadata (tsx cannot: see ts-app-runner.cjs).
  const child = spawn(process.execPath, [join(__dirname, 'ts-app-runner.cjs'), join('apps', app, 'src', 'main.ts')], {
    cwd: join(__dirname, '..', '..'),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      // Replicas share the host: each its own ephemeral /metrics listener (the defaults are fixed ports).
      CONTROL_PLANE_METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      // As testConfig: suites that are not about approvals apply without a second admin (ADR 0300).
      APPROVAL_DEFAULT_KINDS: 'none',
      ...env,
      [PORT_VARIABLE[app]]: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', openSync(logFile, 'a'), 'inherit'],
  });
  everyChild.add(child);
  let exited = false;
  child.once('exit', () => {
    exited = true;
    everyChild.delete(child);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`${label} exited with ${child.exitCode ?? child.signalCode} before it was ready`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${label} was not ready within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const ended = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (exited) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  return {
    name: label,
    pid: child.pid!,
    url,
    logFile,
    get exited() {
      return exited;
    },
    kill: () => ended('SIGKILL'),
    stop: () => ended('SIGTERM'),
  };
}
