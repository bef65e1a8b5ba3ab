/**
 * Prometheus metrics (ADR 0140): one prom-client Registry per app (injected, never the global
 * one: tests boot several apps in one process), served as text at GET /metrics on a listener of
 * its own (METRICS_HOST, loopback by default), never on the app's port.
 */
import { createServer, type Server } from 'node:http';
import {
  Global,
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppConfig } from '../config/config';
import { InjectConfig } from '../config/config.provider';

export const MetricsRegistryToken = Symbol('METRICS_REGISTRY');
export const InjectMetrics = () => Inject(MetricsRegistryToken);

/** A metric as data: the catalog the dashboards and alert rules are checked against. */
export interface MetricDef<L extends string = string> {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  labels: readonly L[];
  buckets?: number[];
}

/** Seconds buckets from 1 ms to 60 s. */
export const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function counterIn<L extends string>(registry: Registry, def: MetricDef<L>): Counter<L> {
  return (
    (registry.getSingleMetric(def.name) as Counter<L> | undefined) ??
    new Counter<L>({ name: def.name, help: def.help, labelNames: def.labels, registers: [registry] })
  );
}

export function gaugeIn<L extends string>(
  registry: Registry,
  def: MetricDef<L>,
  collect?: (this: Gauge<L>) => void | Promise<void>,
): Gauge<L> {
  return (
    (registry.getSingleMetric(def.name) as Gauge<L> | undefined) ??
    new Gauge<L>({ name: def.name, help: def.help, labelNames: def.labels, registers: [registry], ...(collect ? { collect } : {}) })
  );
}

export function histogramIn<L extends string>(registry: Registry, def: MetricDef<L>): Histogram<L> {
  return (
    (registry.getSingleMetric(def.name) as Histogram<L> | undefined) ??
    new Histogram<L>({
      name: def.name,
      help: def.help,
      labelNames: def.labels,
      buckets: def.buckets ?? SECONDS_BUCKETS,
      registers: [registry],
    })
  );
}

/** A fresh registry with the process metrics (CPU, memory, event loop lag, GC) and an `app` label. */
export function createMetricsRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** GET /metrics → the registry's text; anything else 404. Listens on host:port (0 = ephemeral). */
export async function startMetricsServer(registry: Registry, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics collection failed: ${error.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export interface MetricsModuleOptions {
  app: string;
  port: (config: AppConfig) => number;
}

const MetricsOptionsToken = Symbol('METRICS_OPTIONS');

/** Starts the metrics listener after the app has booted; stops it on shutdown. */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server?: Server;

  constructor(
    @Inject(MetricsRegistryToken) private readonly registry: Registry,
    @InjectConfig() private readonly config: AppConfig,
    @Inject(MetricsOptionsToken) private readonly options: MetricsModuleOptions,
  ) {}

  /** Where /metrics is served (undefined: metrics are off). */
  url(): string | undefined {
    const address = this.server?.address();
    if (!address || typeof address === 'string') return undefined;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}/metrics`;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.METRICS_ENABLED) return;
    this.server = await startMetricsServer(this.registry, this.config.METRICS_HOST, this.options.port(this.config));
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** One per app: the app's Registry (global provider) and its /metrics listener. */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(options: MetricsModuleOptions): DynamicModule {
    return {
      module: MetricsModule,
      global: true,
      providers: [
        { provide: MetricsOptionsToken, useValue: options },
        { provide: MetricsRegistryToken, useFactory: () => createMetricsRegistry(options.app) },
        MetricsServer,
      ],
      exports: [MetricsRegistryToken, MetricsServer],
    };
  }
}
