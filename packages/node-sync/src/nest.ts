/**
 * `@cp-sdk/node-sync/nest`: NodeSync in a Nest app (ADR 0224). `NodeSyncModule.forRoot(options)`
 * provides the `NodeSync` of the package's main entry (the class is the token; the build keeps
 * `./index` external, so both entries share one class) and starts and stops it with the app.
 * The repository's own wrapper (libs/node-sdk/src/nest/node-sync.module.ts) reads the
 * repository's config; this one takes the options, since a team's app has its own config.
 * Nest is an optional peer: only this entry loads it.
 */
import { Inject, Injectable, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { NodeSync, type NodeSyncOptions } from './index';

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

@Module({})
export class NodeSyncModule {
  /** Provides and exports `NodeSync` built from `options` (or from a factory, for options that need other providers). */
  static forRoot(options: NodeSyncOptions | (() => NodeSyncOptions)): DynamicModule {
    return {
      module: NodeSyncModule,
      providers: [
        { provide: NodeSync, useFactory: () => new NodeSync(typeof options === 'function' ? options() : options) },
        NodeSyncLifecycle,
      ],
      exports: [NodeSync],
    };
  }
}
