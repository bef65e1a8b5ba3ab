import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfigToken, type AppConfig } from '@cp/common';
import { mintNodeToken } from '@cp/auth';
import { NodeSync, nodeSyncOptionsFromConfig } from '../sync';

/** Starts NodeSync when the app has booted and stops it on shutdown. */
@Injectable()
class NodeSyncLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(NodeSync) private readonly sync: NodeSync) {}
  async onApplicationBootstrap(): Promise<void> {
    await this.sync.start();
  }
  async onApplicationShutdown(): Promise<void> {
    await this.sync.stop();
  }
}

/** The thin Nest wrapper: inject `NodeSync` (the class is the token). */
@Module({
  providers: [
    {
      provide: NodeSync,
      inject: [AppConfigToken],
      useFactory: (config: AppConfig) => {
        const logger = new Logger('NodeSync');
        return new NodeSync(
          nodeSyncOptionsFromConfig(config, {
            mint: (c, agentId) => mintNodeToken(c, agentId, 30 * 24 * 3600),
            logger: { log: (m) => logger.log(m), warn: (m) => logger.warn(m), debug: (m) => logger.debug(m) },
          }),
        );
      },
    },
    NodeSyncLifecycle,
  ],
  exports: [NodeSync],
})
export class NodeSyncModule {}
