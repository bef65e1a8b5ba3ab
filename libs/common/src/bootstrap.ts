import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import type { AppConfig } from './config/config';
import { AppConfigToken, loadConfigOrExit } from './config/config.provider';
import { createFastifyAdapter } from './http/fastify-adapter';

/** Boots a Nest app on Fastify with pino logs, a body limit and graceful shutdown. */
export async function bootstrapFastifyApp(
  module: unknown,
  portOf: (config: AppConfig) => number,
  label: string,
): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(module as never, createFastifyAdapter(loadConfigOrExit()), {
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  const config = app.get<AppConfig>(AppConfigToken);
  const port = portOf(config);
  await app.listen(port, config.HOST);
  app.get(Logger).log(`${label} listening on http://${config.HOST}:${port}`);
  return app;
}
