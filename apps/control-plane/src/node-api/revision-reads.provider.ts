import { Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { AppConfigToken, connectRedis, type AppConfig } from '@cp/common';
import { RevisionReads } from '@cp/sync';

/**
 * The node bundle route's reads of revision keys: a Redis (or Redis Cluster) connection of their
 * own with auto-pipelining, and concurrent reads of one key sharing a GET (ADR 0195). Every other
 * command of the process stays on the shared connection, unpipelined.
 */
export const revisionReadsProvider: Provider = {
  provide: RevisionReads,
  inject: [AppConfigToken],
  useFactory: (config: AppConfig) => new RevisionReads(connectRedis(config, 'cp-bundle-reads', { autoPipelining: true })),
};

/** Closes the connection when the app shuts down. */
@Injectable()
export class RevisionReadsCloser implements OnApplicationShutdown {
  constructor(private readonly reads: RevisionReads) {}
  async onApplicationShutdown(): Promise<void> {
    await this.reads.close();
  }
}
