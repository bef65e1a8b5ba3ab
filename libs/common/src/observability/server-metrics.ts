/**
 * Metrics of the control plane and the worker, as data (names, help, label names, buckets) and as
 * typed accessors over an app's Registry. Every label value is bounded: an enum of the code, a
 * GraphQL root field the schema has, or an agent id of the registry; never a principal, a tenant
 * or free text (ADR 0140). The agent node's metrics are in @cp/node-sdk (node-metrics.ts).
 */
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { counterIn, gaugeIn, histogramIn, SECONDS_BUCKETS, type MetricDef } from './metrics';

const def = <L extends string>(d: MetricDef<L>): MetricDef<L> => d;

export const SERVER_METRICS = {
  graphqlOperations: def({
    name: 'cp_graphql_operations_total',
    help: 'GraphQL root fields executed, by operation type, root field (schema names only) and outcome (ok, error, invalid).',
    type: 'counter',
    labels: ['type', 'field', 'outcome'],
  }),
  graphqlDuration: def({
    name: 'cp_graphql_operation_duration_seconds',
    help: 'GraphQL operation duration from parse to response, by operation type and first root field.',
    type: 'histogram',
    labels: ['type', 'field'],
  }),
  registryChanges: def({
    name: 'cp_registry_changes_total',
    help: 'Registry changes committed (one per audit action of a RegistryWriter change).',
    type: 'counter',
    labels: ['action'],
  }),
  bundleBuild: def({
    name: 'cp_bundle_build_duration_seconds',
    help: 'Time to build one node bundle from a registry snapshot (PostgreSQL read included).',
    type: 'histogram',
    labels: [],
  }),
  publishes: def({
    name: 'cp_sync_publishes_total',
    help: 'Revision announcements to the nodes, by outcome (published, failed: left in the outbox).',
    type: 'counter',
    labels: ['outcome'],
  }),
  pushedDeltas: def({
    name: 'cp_sync_pushed_deltas_total',
    help: 'Announcements of a new revision by whether a delta rode with them (pushed) or nodes fetch it (none: no base in Redis, too long, or not smaller than the bundle).',
    type: 'counter',
    labels: ['outcome'],
  }),
  propagation: def({
    name: 'cp_sync_propagation_seconds',
    help: 'From a revision being published to a node acknowledging it applied, per agent.',
    type: 'histogram',
    labels: ['agent'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  }),
  nacks: def({
    name: 'cp_sync_nacks_total',
    help: 'Bundles a node refused (ack with an error), per agent.',
    type: 'counter',
    labels: ['agent'],
  }),
  fleetNodes: def({
    name: 'cp_fleet_nodes',
    help: 'Nodes by agent and state (live: seen within 30 s; silent: not seen since, no graceful stop, seen within a day; stopped), read at scrape time.',
    type: 'gauge',
    labels: ['agent', 'state'],
  }),
  tokenExchanges: def({
    name: 'cp_token_exchanges_total',
    help: 'Tool-token exchanges, by outcome (issued, or the refusal code).',
    type: 'counter',
    labels: ['outcome'],
  }),
  usageIngest: def({
    name: 'cp_usage_batches_ingested_total',
    help: 'Usage batches received from nodes, by outcome (recorded, duplicate, refused: the batch was wrong, failed: our fault).',
    type: 'counter',
    labels: ['outcome'],
  }),
  retirementRuns: def({
    name: 'cp_retirement_runs_total',
    help: 'Retirement runs, by outcome (completed, failed).',
    type: 'counter',
    labels: ['outcome'],
  }),
  retirementDecisions: def({
    name: 'cp_retirement_capabilities_total',
    help: 'Capabilities the retirement job considered, by decision (retired, kept) and reason.',
    type: 'counter',
    labels: ['decision', 'reason'],
  }),
  jobDuration: def({
    name: 'cp_job_duration_seconds',
    help: 'Background job duration, by queue.',
    type: 'histogram',
    labels: ['queue'],
    buckets: [...SECONDS_BUCKETS, 120, 300, 600],
  }),
  jobFailures: def({
    name: 'cp_job_failures_total',
    help: 'Background jobs that failed, by queue.',
    type: 'counter',
    labels: ['queue'],
  }),
  noticeDeliveries: def({
    name: 'cp_deprecation_notice_deliveries_total',
    help: 'Deprecation-notice delivery attempts, by outcome (delivered, dead, already-done, in-progress, failed: retried by BullMQ).',
    type: 'counter',
    labels: ['outcome'],
  }),
  queueDepth: def({
    name: 'cp_queue_jobs',
    help: 'Jobs in a queue, by queue and state (waiting, delayed, active, failed), read at scrape time.',
    type: 'gauge',
    labels: ['queue', 'state'],
  }),
} as const;

type Key = keyof typeof SERVER_METRICS;
type LabelsOf<K extends Key> = (typeof SERVER_METRICS)[K] extends MetricDef<infer L> ? L : never;

/** A counter of the catalog in this registry (created on first use). */
export function serverCounter<K extends Key>(registry: Registry, key: K): Counter<LabelsOf<K>> {
  return counterIn(registry, SERVER_METRICS[key] as MetricDef<LabelsOf<K>>);
}

export function serverHistogram<K extends Key>(registry: Registry, key: K): Histogram<LabelsOf<K>> {
  return histogramIn(registry, SERVER_METRICS[key] as MetricDef<LabelsOf<K>>);
}

export function serverGauge<K extends Key>(
  registry: Registry,
  key: K,
  collect?: (this: Gauge<LabelsOf<K>>) => void | Promise<void>,
): Gauge<LabelsOf<K>> {
  return gaugeIn(registry, SERVER_METRICS[key] as MetricDef<LabelsOf<K>>, collect);
}
