import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfigToken, createFastifyAdapter, type AppConfig } from '@cp/common';

/** Boots a real app module on Fastify, listening on a loopback port (ephemeral unless given). */
export async function bootApp(module: unknown, config: AppConfig, port = 0): Promise<{ app: NestFastifyApplication; url: string }> {
  const ref = await Test.createTestingModule({ imports: [module as never] })
    .overrideProvider(AppConfigToken)
    .useValue(config)
    .compile();
  const app = ref.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), { logger: false });
  app.enableShutdownHooks();
  await app.listen(port, '127.0.0.1');
  return { app, url: await app.getUrl() };
}
