import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrate } from '@cp/db';

const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  url: string;
  /** Drops the database this suite created (and nothing else). */
  drop(): Promise<void>;
}

/** A fresh, empty database for one suite; `migrated` applies the project's migrations. */
export async function createTestDatabase(label: string, { migrated = true } = {}): Promise<TestDatabase> {
  const name = `cp_test_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database: TestDatabase = {
    name,
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: ADMIN_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
  if (migrated) await migrate(database.url);
  return database;
}
