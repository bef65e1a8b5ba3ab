/**
 * The control plane and the worker's jobs booted in process on one config and one clock: the
 * shape of every suite that acts through the admin API and watches a BullMQ job do the rest
 * (retirement, deprecation notices). One boot instead of the copy in each suite (issue 29).
 *
 *   const { app, worker } = await bootAppAndWorker(RetirementWorkerModule, config, clock);
 *   ...
 *   await closeAppAndWorker({ app, worker }, RETIREMENT_QUEUE);
 *
 * The app is initialised but not listening (suites call it with `app.inject`); the worker is a
 * Nest application context with only the given feature module's processor and scheduler, so a
 * suite gets exactly the jobs it asserts on.
 */
import { Test, type TestingModule } from '@nestjs/testing';
import { getQueueToken } from '@nestjs/bullmq';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Type } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { AppConfigModule, AppConfigToken, createFastifyAdapter, type AppConfig } from '@cp/common';
import { DbModule, PrismaService, seedWhenEmpty } from '@cp/db';
import { Clock, ClockModule } from '@cp/jobs';
import { AppModule } from '../../apps/control-plane/src/app.module';

/** The whole control plane (AppModule) on this config and clock, seeded when empty. */
export async function bootControlPlaneOnClock(config: AppConfig, clock: Clock): Promise<NestFastifyApplication> {
  const ref = await Test.createTestingModule({ imports: [AppModule] })
    .overrideProvider(AppConfigToken)
    .useValue(config)
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  const app = ref.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), { logger: false });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  await seedWhenEmpty(app.get(PrismaService));
  return app;
}

/** One worker process's jobs: its own Prisma pool and BullMQ worker for `feature`, on this config and clock. */
export async function bootWorkerJobs(feature: Type, config: AppConfig, clock: Clock): Promise<TestingModule> {
  const ref = await Test.createTestingModule({ imports: [AppConfigModule, DbModule, ClockModule, feature] })
    .overrideProvider(AppConfigToken)
    .useValue(config)
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  ref.useLogger(false);
  await ref.init();
  return ref;
}

export async function bootAppAndWorker(
  feature: Type,
  config: AppConfig,
  clock: Clock,
): Promise<{ app: NestFastifyApplication; worker: TestingModule }> {
  const app = await bootControlPlaneOnClock(config, clock);
  const worker = await bootWorkerJobs(feature, config, clock);
  return { app, worker };
}

/** Empties the suite's queue (its keys live under the suite's own prefix) and closes the worker, then the app. */
export async function closeAppAndWorker(
  booted: { app?: NestFastifyApplication; worker?: TestingModule },
  queueName: string,
): Promise<void> {
  await booted.worker?.get<Queue>(getQueueToken(queueName)).obliterate({ force: true });
  await booted.worker?.close();
  await booted.app?.close();
}
