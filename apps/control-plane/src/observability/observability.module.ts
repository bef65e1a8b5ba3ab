import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { MetricsModule } from '@cp/common';
import { TracingInterceptor } from './tracing.interceptor';
import { FleetMetrics } from './fleet-metrics';

/**
 * The control plane's /metrics (CONTROL_PLANE_METRICS_PORT on METRICS_HOST, never the API port)
 * and its server spans (GraphQL root fields, the node API); the fleet gauge. ADRs 0140, 0141, 0143.
 */
@Module({
  imports: [MetricsModule.forRoot({ app: 'control-plane', port: (config) => config.CONTROL_PLANE_METRICS_PORT })],
  providers: [{ provide: APP_INTERCEPTOR, useClass: TracingInterceptor }, FleetMetrics],
})
export class ObservabilityModule {}
