import { parseArgs } from 'node:util';
import { PrismaPg } from '@prisma/adapter-pg';
import { loadConfig } from '@cp/common';
import { PrismaClient } from '../../../prisma/generated/client';
import { seedGatewayDemoWhenAbsent, seedWhenEmpty } from './seed';

/**
 * `npm run db:seed`: seeds the worked example into an empty registry; otherwise does nothing.
 * `… --gateway-demo --upstream <url> --allow <host|cidr> [--node-url <url>]`: seeds the gateway demo
 * instead (docs/gateway.md), unless its agent exists.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const { values } = parseArgs({
    options: {
      'gateway-demo': { type: 'boolean', default: false },
      upstream: { type: 'string' },
      allow: { type: 'string', multiple: true },
      'node-url': { type: 'string', default: 'http://127.0.0.1:3003' },
    },
  });
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: config.DATABASE_URL }) });
  try {
    if (values['gateway-demo']) {
      if (!values.upstream) throw new Error('--gateway-demo needs --upstream <the upstream JSON-RPC URL>');
      const seeded = await seedGatewayDemoWhenAbsent(prisma, {
        upstreamUrl: values.upstream,
        baseUrl: values['node-url'],
        upstreamAllow: values.allow ?? [],
      });
      process.stdout.write(
        seeded ? 'seeded the gateway demo (agent recon-gateway)\n' : 'agent recon-gateway exists: gateway demo seed skipped\n',
      );
      return;
    }
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
