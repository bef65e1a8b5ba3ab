import type { Registry } from 'prom-client';
import { MetricsRegistryToken } from '@cp/common';
import { NodeMetrics, NodeSync } from '@cp/node-sdk';
import { ERP_TOOL } from './finance/erp-tool';

/** The node's metrics on the app's registry; NodeSync reports its fetch outcomes to them. */
export const nodeMetricsProvider = {
  provide: NodeMetrics,
  inject: [MetricsRegistryToken, NodeSync],
  useFactory: (registry: Registry, sync: NodeSync): NodeMetrics => {
    const metrics = new NodeMetrics(registry, { bundle: () => sync.current(), tools: [ERP_TOOL] });
    sync.onFetched((outcome) => metrics.fetched(outcome));
    return metrics;
  },
};
