import { join } from 'node:path';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfigToken, type AppConfig } from '@cp/common';
import { HttpUsageSender, NodeMetrics, UsageReporter } from '@cp/node-sdk';
import { NodeIdentityToken, type NodeIdentity } from './node-identity';

export function createUsageReporter(config: AppConfig, identity: NodeIdentity, metrics?: NodeMetrics): UsageReporter {
  const logger = new Logger('Usage');
  const safeId = identity.nodeId.replace(/[^A-Za-z0-9._-]/g, '_');
  return new UsageReporter({
    nodeId: identity.nodeId,
    sender: new HttpUsageSender(config.CONTROL_PLANE_URL, () => identity.nodeToken),
    flushIntervalMs: config.USAGE_FLUSH_INTERVAL_MS,
    spoolFile: join(config.NODE_CACHE_DIR, `${config.AGENT_ID}.${safeId}.usage-spool.json`),
    log: { warn: (f, m) => logger.warn({ ...f, msg: m }), error: (f, m) => logger.error({ ...f, msg: m }) },
    observer: metrics,
  });
}

/** Starts the reporter with the app (reloading spooled batches) and flushes on shutdown. */
@Injectable()
export class UsageReportingLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(UsageReporter) private readonly reporter: UsageReporter) {}
  async onApplicationBootstrap(): Promise<void> {
    await this.reporter.start();
  }
  async onApplicationShutdown(): Promise<void> {
    await this.reporter.stop();
  }
}

export const usageProviders = [
  { provide: UsageReporter, inject: [AppConfigToken, NodeIdentityToken, NodeMetrics], useFactory: createUsageReporter },
  UsageReportingLifecycle,
];
