/**
 * A TCP proxy that holds every new connection for `delayMs` before it reaches its target: a Redis
 * (or any server) that is present but slow to answer, as on a loaded machine, without a timing
 * race in the test.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './free-port';

export interface SlowTcpProxy {
  port: number;
  url: string;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

export async function startSlowTcpProxy(target: { host: string; port: number }, delayMs: number, scheme = 'redis'): Promise<SlowTcpProxy> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted++;
    sockets.add(client);
    client.pause();
    client.on('error', () => undefined);
    client.on('close', () => sockets.delete(client));
    setTimeout(() => {
      if (client.destroyed) return;
      const upstream = createConnection(target, () => {
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      client.on('close', () => upstream.destroy());
    }, delayMs).unref();
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
