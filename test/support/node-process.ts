/**
 * A NodeSync in a separate OS process (a real restart, its own event loop and Redis connection).
 * Parent side: `spawnNodeProcess(options)`; the child is this same file run by tsx with
 * NODE_SYNC_CHILD set. They talk over the fork IPC channel.
 */
import { fork, type ChildProcess } from 'node:child_process';
// The core file, not the package index: the child proves NodeSync runs without Nest loaded.
import { NodeSync, type NodeSyncOptions, type NodeSyncStatus } from '../../libs/node-sdk/src/node-sync';

/** `kid`: the key that signed the served bundle (from its JWS header). */
type ChildStatus = Omit<NodeSyncStatus, 'lastFetchAt'> & { agentId: string | null; publicEtag: string | null; kid: string | null };
type Reply = { id: number; status: ChildStatus };

export interface NodeProcess {
  readonly pid: number;
  status(): Promise<ChildStatus>;
  /** Polls status until `predicate` holds (or throws after timeoutMs). */
  waitFor(predicate: (s: ChildStatus) => boolean, timeoutMs?: number): Promise<ChildStatus>;
  /** SIGKILL: no graceful anything, like a crashed node. */
  kill(): Promise<void>;
}

export async function spawnNodeProcess(options: NodeSyncOptions): Promise<NodeProcess> {
  const child: ChildProcess = fork(__filename, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NODE_SYNC_CHILD: JSON.stringify({ ...options, logger: undefined }) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  const waiting = new Map<number, (status: ChildStatus) => void>();
  child.on('message', (m: Reply | { ready: true }) => {
    if ('id' in m) waiting.get(m.id)?.(m.status);
  });
  await new Promise<void>((resolve, reject) => {
    const onMessage = (m: unknown) => {
      if ((m as { ready?: boolean }).ready) {
        child.off('message', onMessage);
        resolve();
      }
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`node process exited with ${code} before it started`)));
  });
  const status = () =>
    new Promise<ChildStatus>((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => reject(new Error('node process did not answer')), 5000);
      waiting.set(id, (s) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(s);
      });
      child.send({ id });
    });
  return {
    pid: child.pid!,
    status,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      let last: ChildStatus | undefined;
      while (Date.now() < deadline) {
        last = await status();
        if (predicate(last)) return last;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`node process: condition not met within ${timeoutMs} ms; last status ${JSON.stringify(last)}`);
    },
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

async function runChild(options: NodeSyncOptions): Promise<void> {
  const sync = new NodeSync(options);
  process.on('message', (m: { id: number }) => {
    const { lastFetchAt: _at, ...status } = sync.status();
    const current = sync.current();
    const signature = current?.bundle.signature;
    const kid = signature
      ? ((JSON.parse(Buffer.from(signature.split('.')[0], 'base64url').toString('utf8')) as { kid?: string }).kid ?? null)
      : null;
    process.send!({
      id: m.id,
      status: { ...status, agentId: current?.agentId ?? null, publicEtag: current?.publicCard.etag ?? null, kid },
    });
  });
  process.on('disconnect', () => void sync.stop().finally(() => process.exit(0)));
  await sync.start();
  process.send!({ ready: true });
}

if (process.env.NODE_SYNC_CHILD) void runChild(JSON.parse(process.env.NODE_SYNC_CHILD) as NodeSyncOptions);
