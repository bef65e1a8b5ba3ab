import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import type { AppConfig } from './config/config';
import { AppConfigToken, loadConfigOrExit } from './config/config.provider';
import { createFastifyAdapter } from './http/fastify-adapter';
import { startTracing } from './observability/tracing';
import { MetricsServer } from './observability/metrics';

/** Boots a Nest app on Fastify with pino logs, a body limit and graceful shutdown. */
export async function bootstrapFastifyApp(
  module: unknown,
  portOf: (config: AppConfig) => number,
  label: string,
): Promise<NestFastifyApplication> {
  const boot = loadConfigOrExit();
  // Before the app is built, so every span of the process goes to the configured exporter.
  const stopTracing = startTracing(boot, label);
  const app = await NestFactory.create<NestFastifyApplication>(module as never, createFastifyAdapter(boot), {
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  // Flush the last spans after Nest's own shutdown hooks ran.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stopTracing());
  const config = app.get<AppConfig>(AppConfigToken);
  const port = portOf(config);
  await app.listen(port, config.HOST);
  app.get(Logger).log(`${label} listening on http://${config.HOST}:${port}`);
  const metrics = app.get(MetricsServer, { strict: false }).url();
  if (metrics) app.get(Logger).log(`${label} metrics on ${metrics}`);
  return app;
}
