import { Controller, Get, HttpCode, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { ReadinessProbes, type ReadinessProbe } from './readiness';

const PROBE_TIMEOUT_MS = 2000;

/**
 * /healthz (liveness): the process answers, always 200; `details` shows the state of the
 * dependencies the app keeps serving without (probes with role `report`).
 * /readyz (readiness): 503 unless every dependency the app cannot serve without answers (role `gate`).
 */
@Controller()
export class HealthController {
  private readonly gates: ReadinessProbe[];
  private readonly reported: ReadinessProbe[];

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(ReadinessProbes) probes: ReadinessProbe[],
  ) {
    this.gates = probes.filter((probe) => (probe.role ?? 'gate') === 'gate');
    this.reported = probes.filter((probe) => probe.role === 'report');
  }

  @Get('healthz')
  @HttpCode(200)
  async liveness() {
    const results = await Promise.all(this.reported.map((probe) => this.probe(probe)));
    const details = Object.assign({}, ...results) as HealthIndicatorResult;
    const pick = (status: 'up' | 'down') => Object.fromEntries(Object.entries(details).filter(([, value]) => value.status === status));
    return { status: 'ok', info: pick('up'), error: pick('down'), details };
  }

  @Get('readyz')
  @HealthCheck()
  readiness() {
    return this.health.check(this.gates.map((probe) => () => this.probe(probe)));
  }

  private async probe(probe: ReadinessProbe): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(probe.name);
    try {
      return indicator.up((await withTimeout(probe.check(), PROBE_TIMEOUT_MS)) ?? undefined);
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
