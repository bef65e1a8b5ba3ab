/**
 * The unit tier runs without PostgreSQL and Redis: test/support/no-services.ts refuses every
 * connection to them, even on this machine where both run. These specs prove the guard holds
 * (so `npm run test:unit` passing means no unit spec needs a service) and that specs can still
 * use servers of their own on loopback.
 */
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { Client } from 'pg';
import { loadConfig } from '@cp/common';

const config = loadConfig({ NODE_ENV: 'test' });

describe('the unit tier has no services', () => {
  it('refuses a PostgreSQL connection to the configured database', async () => {
    const client = new Client({ connectionString: config.DATABASE_URL });
    await expect(client.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await client.end().catch(() => undefined);
  });

  it('refuses PostgreSQL over its unix socket too', async () => {
    const client = new Client({ host: '/var/run/postgresql', user: 'postgres', database: 'postgres' });
    await expect(client.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await client.end().catch(() => undefined);
  });

  it('refuses a connection to the configured Redis', async () => {
    const { hostname, port } = new URL(config.REDIS_URL);
    const error = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      createConnection({ host: hostname, port: Number(port) })
        .on('connect', () => reject(new Error('connected to Redis from a unit spec')))
        .on('error', resolve);
    });
    expect(error.code).toBe('ECONNREFUSED');
  });

  it('still lets a spec talk to a server it started on loopback', async () => {
    const server = createServer((socket) => socket.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const reply = await new Promise<string>((resolve, reject) => {
      let text = '';
      createConnection({ host: '127.0.0.1', port })
        .on('data', (chunk) => (text += String(chunk)))
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(reply).toBe('hello');
  });
});
