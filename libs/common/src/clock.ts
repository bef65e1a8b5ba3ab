import { Global, Injectable, Module } from '@nestjs/common';

/**
 * The time, injectable so tests can fix it: the retirement rule, usage ingestion and retention ask the
 * clock, never `new Date()`, for "now".
 */
export abstract class Clock {
  abstract now(): Date;
}

@Injectable()
export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** Provides the system clock; tests override the `Clock` provider with `FixedClock` from `@cp/jobs/testing`. */
@Global()
@Module({ providers: [{ provide: Clock, useClass: SystemClock }], exports: [Clock] })
export class ClockModule {}
