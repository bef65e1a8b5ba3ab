import { loadConfig } from '@cp/common';
import { ensureDatabase } from './database-url';
import { migrate } from './migrate';

/** `npm run db:migrate`: create the database if needed, then apply pending migrations. */
async function main(): Promise<void> {
  const { DATABASE_URL } = loadConfig();
  if (await ensureDatabase(DATABASE_URL)) process.stdout.write(`created database ${new URL(DATABASE_URL).pathname.slice(1)}\n`);
  const result = await migrate(DATABASE_URL);
  process.stdout.write(
    result.applied.length
      ? `applied ${result.applied.length} migration(s): ${result.applied.join(', ')}\n`
      : `database is up to date (${result.alreadyApplied.length} migration(s) applied)\n`,
  );
}

main().catch((error: Error) => {
  process.stderr.write(`db:migrate failed: ${error.message}\n`);
  process.exit(1);
});
