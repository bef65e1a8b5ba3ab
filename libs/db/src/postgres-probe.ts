import type { ReadinessProbe } from '@cp/common';
import type { PrismaService } from './prisma.service';

export function postgresProbe(prisma: PrismaService): ReadinessProbe {
  return { name: 'postgres', check: async () => void (await prisma.$queryRaw`SELECT 1`) };
}
