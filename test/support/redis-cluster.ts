/**
 * A private Redis Cluster for a suite: three masters and one replica each, from the machine's
 * `redis-server` in cluster mode on free ports, joined by `redis-cli --cluster create`. Keeps
 * nothing on disk but the nodes' cluster files (in a temporary directory removed at stop). The
 * shared Redis on 6379 is never touched. `killMasterOf(key)` SIGKILLs the master that owns a key's
 * slot and waits until its replica has taken over and the cluster answers again.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);

export interface ClusterNodeInfo {
  port: number;
  id: string;
  role: 'master' | 'replica';
  /** For a master: the slot ranges it owns. */
  slots: [number, number][];
  alive: boolean;
}

export interface PrivateRedisCluster {
  /** `127.0.0.1:port` of every node started (REDIS_CLUSTER_NODES). */
  readonly nodes: string[];
  /** The cluster's view from a live node. */
  topology(): Promise<ClusterNodeInfo[]>;
  /** The slot of a key (CLUSTER KEYSLOT). */
  slotOf(key: string): Promise<number>;
  /** SIGKILLs the master owning `key`'s slot; resolves with its port once a replica serves the slot. */
  killMasterOf(key: string, timeoutMs?: number): Promise<{ killed: number; promoted: number }>;
  stop(): Promise<void>;
}

const cli = async (port: number, ...args: string[]) =>
  (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 })).stdout.trim();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every started child, killed when the test process exits however it exits. */
const everyChild = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of everyChild) c.kill('SIGKILL');
});

export async function startRedisCluster(options: { masters?: number; replicasPerMaster?: number } = {}): Promise<PrivateRedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 1;
  const dir = await mkdtemp(join(tmpdir(), 'redis-cluster-'));
  const children = new Map<number, ChildProcess>();
  // Each node listens on a port and its cluster bus on another (`--cluster-port`), all free and distinct.
  const ports: number[] = [];
  const busPorts: number[] = [];
  const taken = new Set<number>();
  const pick = async () => {
    for (;;) {
      const p = await freePort();
      if (!taken.has(p)) return (taken.add(p), p);
    }
  };
  for (let i = 0; i < masters * (1 + replicas); i++) {
    ports.push(await pick());
    busPorts.push(await pick());
  }

  const stop = async () => {
    await Promise.all(
      [...children.values()].map(
        (c) =>
          new Promise<void>((resolve) => {
            everyChild.delete(c);
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGKILL');
          }),
      ),
    );
    children.clear();
    await rm(dir, { recursive: true, force: true });
  };

  try {
    for (const [i, port] of ports.entries()) {
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--cluster-port',
          String(busPorts[i]),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          // A dead master is noticed and replaced within a few seconds.
          '--cluster-node-timeout',
          '1000',
          // Replicas sync at once, and one may take over whatever its replication lag.
          '--repl-diskless-sync-delay',
          '0',
          '--cluster-replica-validity-factor',
          '0',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
          '--loglevel',
          process.env.REDIS_CLUSTER_LOGLEVEL ?? 'warning',
          ...(process.env.REDIS_CLUSTER_LOGDIR ? ['--logfile', join(process.env.REDIS_CLUSTER_LOGDIR, `${port}.log`)] : []),
        ],
        { stdio: 'ignore' },
      );
      children.set(port, child);
      everyChild.add(child);
    }
    for (const port of ports) await waitFor(async () => (await cli(port, 'PING')) === 'PONG', 10_000, `redis-server on ${port}`);
    await run(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicas), '--cluster-yes'],
      { timeout: 60_000 },
    );
    for (const port of ports)
      await waitFor(async () => (await cli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'), 30_000, `cluster state on ${port}`);
    // Every replica attached to its master and in sync (a failover needs one).
    await waitFor(
      async () => {
        const nodes = await topologyFrom(ports[0]);
        const replicaPorts = nodes.filter((n) => n.role === 'replica').map((n) => n.port);
        if (replicaPorts.length !== masters * replicas) return false;
        for (const port of replicaPorts) if (!(await cli(port, 'INFO', 'replication')).includes('master_link_status:up')) return false;
        return true;
      },
      30_000,
      'replicas in sync',
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const livePort = () => {
    for (const [port, c] of children) if (c.exitCode === null && c.signalCode === null) return port;
    throw new Error('no live cluster node');
  };

  const cluster: PrivateRedisCluster = {
    nodes: ports.map((p) => `127.0.0.1:${p}`),
    topology: () => topologyFrom(livePort()),
    slotOf: async (key) => Number(await cli(livePort(), 'CLUSTER', 'KEYSLOT', key)),
    async killMasterOf(key, timeoutMs = 30_000) {
      const slot = await cluster.slotOf(key);
      const owner = (await cluster.topology()).find(
        (n) => n.role === 'master' && n.alive && n.slots.some(([a, b]) => slot >= a && slot <= b),
      );
      if (!owner) throw new Error(`no master owns slot ${slot}`);
      const child = children.get(owner.port)!;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
      everyChild.delete(child);
      let promoted = 0;
      await waitFor(
        async () => {
          const nodes = await cluster.topology();
          const now = nodes.find((n) => n.role === 'master' && n.alive && n.slots.some(([a, b]) => slot >= a && slot <= b));
          if (!now || now.port === owner.port) return false;
          promoted = now.port;
          return (await cli(now.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok');
        },
        timeoutMs,
        `a replica taking over slot ${slot}`,
      );
      return { killed: owner.port, promoted };
    },
    stop,
  };
  return cluster;
}

async function topologyFrom(port: number): Promise<ClusterNodeInfo[]> {
  // <id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <link> <slot> <slot> ...
  return (await cli(port, 'CLUSTER', 'NODES'))
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, address, flags, , , , , link, ...slots] = line.split(' ');
      const nodePort = Number(address.split('@')[0].split(':').pop());
      const flagList = flags.split(',');
      return {
        id,
        port: nodePort,
        role: flagList.includes('master') ? ('master' as const) : ('replica' as const),
        alive: !flagList.includes('fail') && !flagList.includes('fail?') && link === 'connected',
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [a, b] = s.split('-').map(Number);
            return [a, b ?? a] as [number, number];
          }),
      };
    });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    await sleep(100);
  }
  throw new Error(`redis cluster: ${what} not reached within ${timeoutMs} ms${last ? ` (${(last as Error).message})` : ''}`);
}
