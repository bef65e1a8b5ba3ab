import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { AppConfigToken, createFastifyAdapter, LogDestinationToken, type AppConfig } from '@cp/common';
import type { LogCapture } from './log-capture';

/**
 * Boots a real app module on Fastify, listening on an ephemeral loopback port. With `logs`, the
 * app's pino output (Nest's own logger included, as in production) goes to that capture.
 */
export async function bootApp(
  module: unknown,
  config: AppConfig,
  options: { logs?: LogCapture; port?: number } = {},
): Promise<{ app: NestFastifyApplication; url: string }> {
  let builder = Test.createTestingModule({ imports: [module as never] })
    .overrideProvider(AppConfigToken)
    .useValue(config);
  if (options.logs) builder = builder.overrideProvider(LogDestinationToken).useValue(options.logs);
  const ref = await builder.compile();
  const app = ref.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), {
    logger: false,
    bufferLogs: options.logs !== undefined,
  });
  if (options.logs) app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await app.listen(options.port ?? 0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}
