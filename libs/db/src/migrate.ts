import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

/**
 * Applies prisma/migrations/<timestamp>_<name>/migration.sql in order, each in its own
 * transaction, under a PostgreSQL advisory lock, keeping Prisma's `_prisma_migrations`
 * bookkeeping (id, sha256 checksum, started/finished times, applied steps) so that
 * `prisma migrate deploy` on a machine with engines sees these migrations as applied.
 */

/** Arbitrary but fixed: every migrator of this product takes the same lock. */
const MIGRATION_LOCK_KEY = 72707369;

export const DEFAULT_MIGRATIONS_DIR = join(__dirname, '..', '..', '..', 'prisma', 'migrations');

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export function readMigrations(dir: string = DEFAULT_MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((entry) => statSync(join(dir, entry)).isDirectory())
    .sort()
    .map((name) => {
      if (!/^\d{14}_[a-z0-9_]+$/.test(name)) {
        throw new MigrationError(`Migration folder "${name}" must be named <14-digit timestamp>_<snake_case_name>`);
      }
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const BOOKKEEPING_DDL = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export async function migrate(databaseUrl: string, dir: string = DEFAULT_MIGRATIONS_DIR): Promise<MigrateResult> {
  const migrations = readMigrations(dir);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(BOOKKEEPING_DDL);
    const { rows } = await client.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const applied = new Map(rows.map((row) => [row.migration_name, row]));
    const known = new Set(migrations.map((m) => m.name));
    for (const row of rows) {
      if (row.finished_at === null) {
        throw new MigrationError(`Migration "${row.migration_name}" started but never finished; resolve it by hand before migrating again`);
      }
      if (!known.has(row.migration_name)) {
        throw new MigrationError(`Migration "${row.migration_name}" is applied in the database but missing from ${dir}`);
      }
    }
    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const migration of migrations) {
      const row = applied.get(migration.name);
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new MigrationError(
            `Migration "${migration.name}" was changed after it was applied (checksum ${row.checksum.slice(0, 12)}… in the database, ${migration.checksum.slice(0, 12)}… on disk). Add a new migration instead of editing an applied one.`,
          );
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      await applyOne(client, migration);
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

async function applyOne(client: Client, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(
      'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new MigrationError(`Migration "${migration.name}" failed and was rolled back: ${(error as Error).message}`);
  }
}
