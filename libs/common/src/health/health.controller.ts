import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { Redis } from 'ioredis';
import { RedisToken } from '../redis/redis.module';
import { ReadinessProbes, type ReadinessProbe } from './readiness';

/** /healthz: the process answers. /readyz: PostgreSQL and Redis answer too. */
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(RedisToken) private readonly redis: Redis,
    @Inject(ReadinessProbes) private readonly probes: ReadinessProbe[],
  ) {}

  @Get('healthz')
  @HealthCheck()
  liveness() {
    return this.health.check([]);
  }

  @Get('readyz')
  @HealthCheck()
  readiness() {
    return this.health.check([
      () => this.probe('redis', async () => void (await this.redis.ping())),
      ...this.probes.map((probe) => () => this.probe(probe.name, probe.check)),
    ]);
  }

  private async probe(key: string, check: () => Promise<void>): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    try {
      await withTimeout(check(), 2000);
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
