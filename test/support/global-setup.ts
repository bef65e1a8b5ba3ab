/** Fails fast, with a clear message, when the services the suites need are not reachable. */
import { Client } from 'pg';
import { createConnection } from 'node:net';

function ping(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export default async function globalSetup(): Promise<void> {
  const pg = new Client({ connectionString: process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' });
  try {
    await pg.connect();
    await pg.query('select 1');
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable for the tests: ${(error as Error).message}`);
  } finally {
    await pg.end().catch(() => undefined);
  }
  if (!(await ping('127.0.0.1', 6379))) throw new Error('Redis is not reachable on 127.0.0.1:6379 for the tests');
}
