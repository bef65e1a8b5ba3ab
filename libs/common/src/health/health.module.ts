import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { ReadinessProbes } from './readiness';

@Module({})
export class HealthModule {
  /** `probes` is a provider factory returning every dependency the app checks (see ReadinessProbe). */
  static forRoot(probes: Omit<Extract<Provider, { useFactory: unknown }>, 'provide'>): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController],
      providers: [{ provide: ReadinessProbes, ...probes }],
    };
  }
}
