import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../../../prisma/generated/client';
import { InjectConfig, type AppConfig } from '@cp/common';

/** The generated client over the pg driver adapter. Used only by *.repository.ts files. */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  /**
   * The pool the adapter queries through, for the rare hot read a repository writes as one SQL
   * statement of its own (the admin list's page with its usage, ADR 0340): same connections, same
   * limit, ended with the client. Everything else goes through Prisma.
   */
  readonly pool: pg.Pool;

  constructor(@InjectConfig() config: AppConfig) {
    const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: 10 });
    // An idle connection that fails leaves the pool by itself; the next query reports an outage.
    // (The adapter listens too, but only once Prisma connects, which a raw read may precede.)
    pool.on('error', () => undefined);
    super({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
    this.pool = pool;
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
