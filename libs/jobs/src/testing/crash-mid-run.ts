/**
 * A retirement run that CRASHES (SIGKILL, no cleanup) right after the first agent's registry
 * change committed. Used by test/e2e/retirement-safety.e2e-spec.ts to prove a rerun after a
 * crash still retires each capability exactly once.
 * Run: DATABASE_URL=... npx tsx libs/jobs/src/testing/crash-mid-run.ts <asOf ISO> <runId>
 * Built by hand (no Nest DI): tsx's esbuild does not emit decorator metadata.
 */
import { loadConfig } from '@cp/common';
import { PrismaService, RegistryWriter } from '@cp/db';
import { FixedClock } from './fixed-clock';
import { RetirementPlanner } from '../retirement/retirement-planner';
import { RetirementRepository } from '../retirement/retirement.repository';
import { RetirementRunsRepository } from '../retirement/retirement-runs.repository';
import { RetirementService } from '../retirement/retirement.service';

async function main(): Promise<void> {
  const [asOf, runId] = process.argv.slice(2);
  const config = loadConfig();
  const prisma = new PrismaService(config);
  const writer = new RegistryWriter(prisma, [
    {
      revisionCommitted: async (agentId: string, revision: number) => {
        process.stdout.write(`committed ${agentId}@${revision}\n`);
        process.kill(process.pid, 'SIGKILL');
      },
    },
  ]);
  const repository = new RetirementRepository(prisma);
  const service = new RetirementService(
    new RetirementPlanner(repository, config),
    repository,
    new RetirementRunsRepository(prisma),
    writer,
    new FixedClock(new Date(asOf)),
  );
  await service.run({ trigger: 'manual', runId });
  process.stdout.write('finished without crashing\n');
  await prisma.$disconnect();
}

void main();
