import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DEFAULT_MIGRATIONS_DIR, migrate, readMigrations } from '@cp/db';
import { diffSchemaAgainstDatabase } from '@cp/db/testing';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const SCHEMA = readFileSync(join(__dirname, '..', '..', 'prisma', 'schema.prisma'), 'utf8');

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('db:migrate', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('migrations', { migrated: false });
  });
  afterAll(() => db.drop());

  it('applies every migration once, with Prisma bookkeeping, and is a no-op the second time', async () => {
    const first = await migrate(db.url);
    expect(first.applied).toEqual(readMigrations().map((m) => m.name));
    const second = await migrate(db.url);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toEqual(first.applied);

    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }>(
      db.url,
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(first.applied);
    for (const [i, row] of rows.entries()) {
      expect(row.checksum).toBe(readMigrations()[i].checksum);
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.applied_steps_count).toBe(1);
    }
  });

  it('refuses an applied migration whose file changed, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-migrations-'));
    cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
    const [firstName] = readMigrations(dir).map((m) => m.name);
    writeFileSync(join(dir, firstName, 'migration.sql'), `${readFileSync(join(dir, firstName, 'migration.sql'), 'utf8')}\n-- edited\n`);
    await expect(migrate(db.url, dir)).rejects.toThrow(new RegExp(`Migration "${firstName}" was changed after it was applied`));
  });

  it('rolls back a failing migration completely and records nothing for it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-migrations-'));
    cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
    const bad = '29991231000000_broken';
    require('node:fs').mkdirSync(join(dir, bad));
    writeFileSync(join(dir, bad, 'migration.sql'), 'CREATE TABLE "Half" (id int);\nSELECT * FROM "NoSuchTable";');
    await expect(migrate(db.url, dir)).rejects.toThrow(/Migration "29991231000000_broken" failed and was rolled back/);
    const half = await query<{ n: string }>(db.url, `SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'Half'`);
    expect(Number(half[0].n)).toBe(0);
    const recorded = await query(db.url, `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '${bad}'`);
    expect(recorded).toHaveLength(0);
  });

  it('serializes concurrent migrators with the advisory lock', async () => {
    const fresh = await createTestDatabase('migrations_concurrent', { migrated: false });
    try {
      const results = await Promise.all([migrate(fresh.url), migrate(fresh.url), migrate(fresh.url)]);
      const appliedCounts = results.map((r) => r.applied.length).sort();
      expect(appliedCounts).toEqual([0, 0, readMigrations().length]);
    } finally {
      await fresh.drop();
    }
  });
});

describe('schema drift guard', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('drift');
  });
  afterAll(() => db.drop());

  it('finds no difference between schema.prisma and the migrated database', async () => {
    expect(await diffSchemaAgainstDatabase(SCHEMA, db.url)).toEqual([]);
  });

  it('fails when a field is added to schema.prisma without a migration', async () => {
    const edited = SCHEMA.replace(/model Tenant \{\n/, 'model Tenant {\n  region String?\n');
    expect(await diffSchemaAgainstDatabase(edited, db.url)).toEqual([
      'Tenant.region: column "region" missing in the database (add a migration)',
    ]);
  });

  it('fails when an index, a nullability or a type changes without a migration', async () => {
    const edited = SCHEMA.replace('  @@index([ownerTeamId])\n', '  @@index([ownerTeamId])\n  @@index([handler])\n')
      .replace('  hostname        String?', '  hostname        String')
      .replace('  revision             Int      @default(0)', '  revision             BigInt   @default(0)');
    const problems = await diffSchemaAgainstDatabase(edited, db.url);
    expect(problems).toEqual(
      expect.arrayContaining([
        'CapabilityManifest: index normal(handler) missing in the database',
        'Node.hostname: nullable in the database, NOT NULL expected',
        'Agent.revision: type int4 in the database, int8 expected',
      ]),
    );
    expect(problems).toHaveLength(3);
  });

  it('enforces enumerations and checks in the database itself', async () => {
    await query(db.url, `INSERT INTO "Team"(id, name) VALUES ('t1', 'T1')`);
    await expect(query(db.url, `INSERT INTO "Team"(id, name) VALUES ('Not A Slug', 'x')`)).rejects.toThrow(/Team_id_slug_check/);
    await query(
      db.url,
      `INSERT INTO "Agent"(id, "teamId", name, description, version, "supportedInterfaces", "defaultInputModes", "defaultOutputModes", "updatedAt")
       VALUES ('a1', 't1', 'A', 'd', '1.0.0', '[{"url":"http://x"}]', '{text/plain}', '{text/plain}', now())`,
    );
    const insertManifest = (state: string, extra = '') =>
      query(
        db.url,
        `INSERT INTO "CapabilityManifest"("agentId","capabilityId",state,visibility,skill,"requiresScopes","tenantsAll",tenants,handler,"ownerTeamId","updatedAt"${extra ? ',"deprecatedAt"' : ''})
         VALUES ('a1','c-${state}','${state}','public','{}','{}',true,'{}','h.x','t1',now()${extra})`,
      );
    await expect(insertManifest('retired')).rejects.toThrow(/invalid input value for enum "CapabilityState"/);
    await expect(insertManifest('deprecated', ',now()')).rejects.toThrow(/CapabilityManifest_deprecated_check/);
    await expect(insertManifest('removed')).rejects.toThrow(/CapabilityManifest_removed_check/);
    await insertManifest('ga');
  });
});
