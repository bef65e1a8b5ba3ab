import { PrismaPg } from '@prisma/adapter-pg';
import { loadConfig } from '@cp/common';
import { PrismaClient } from '../../../prisma/generated/client';
import { seedWhenEmpty } from './seed';

/** `npm run db:seed`: seeds the worked example into an empty registry; otherwise does nothing. */
async function main(): Promise<void> {
  const config = loadConfig();
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: config.DATABASE_URL }) });
  try {
    const seeded = await seedWhenEmpty(prisma, { agentNodeUrl: `http://127.0.0.1:${config.AGENT_NODE_PORT}` });
    process.stdout.write(seeded ? 'seeded the finance agent example\n' : 'registry not empty: seed skipped\n');
  } finally {
    await prisma.$disconnect();
  }
}

main().catch((error: Error) => {
  process.stderr.write(`db:seed failed: ${error.message}\n`);
  process.exit(1);
});
