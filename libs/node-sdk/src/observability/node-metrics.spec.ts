import { Registry } from 'prom-client';
import type { ServedBundle } from '../a2a/served-bundle';
import { NodeMetrics } from './node-metrics';

const bundle = (ids: string[], revision = 7, generatedAt = new Date(Date.now() - 5000).toISOString()) =>
  ({ revision, policy: { entries: ids.map((capabilityId) => ({ capabilityId })) }, bundle: { generatedAt } }) as unknown as ServedBundle;

async function series(registry: Registry, name: string): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const metric = registry.getSingleMetric(name);
  return metric ? ((await metric.get()).values as { labels: Record<string, string | number>; value: number }[]) : [];
}

describe('NodeMetrics', () => {
  it('labels capability ids only from the served bundle: hostile ids all fall into `other`', async () => {
    const registry = new Registry();
    const served = bundle(['invoice-lookup', 'reconcile-invoice']);
    const metrics = new NodeMetrics(registry, { bundle: () => served, tools: ['erp'] });
    for (let i = 0; i < 1000; i++) {
      metrics.denied(`cap-${i}`);
      metrics.handled(`x${'y'.repeat(i)}`, 'completed', 0.01);
      metrics.call(`tool-${i}`, 'refused');
    }
    metrics.denied('reconcile-invoice');
    metrics.call('erp', 'ok');
    const denials = await series(registry, 'a2a_entitlement_denials_total');
    expect(denials.map((s) => [s.labels.capability, s.value]).sort()).toEqual([
      ['other', 1000],
      ['reconcile-invoice', 1],
    ]);
    const calls = await series(registry, 'a2a_tool_calls_total');
    expect(calls.map((s) => `${s.labels.tool}/${s.labels.outcome}=${s.value}`).sort()).toEqual(['erp/ok=1', 'other/refused=1000']);
    const handled = (await series(registry, 'a2a_handler_duration_seconds')).filter((s) => s.labels.le === undefined);
    expect(new Set(handled.map((s) => s.labels.capability))).toEqual(new Set(['other']));
  });

  it('counts cards on pre-bound children (unknown statuses are `other`) and reads the bundle gauges at scrape time', async () => {
    const registry = new Registry();
    const state: { served?: ServedBundle } = {};
    const metrics = new NodeMetrics(registry, { bundle: () => state.served });
    metrics.card('public', 200);
    metrics.card('public', 304);
    metrics.card('public', 304);
    metrics.card('extended', 418);
    const cards = await series(registry, 'a2a_card_requests_total');
    const byKey = Object.fromEntries(cards.map((s) => [`${s.labels.kind}/${s.labels.status}`, s.value]));
    // Bound children are created once; a series appears on its first increment.
    expect(byKey).toEqual({ 'public/200': 1, 'public/304': 2, 'extended/other': 1 });
    // No bundle yet: the label-less gauge reads 0.
    expect((await series(registry, 'node_bundle_revision')).map((s) => s.value)).toEqual([0]);
    state.served = bundle(['a'], 12);
    expect((await series(registry, 'node_bundle_revision'))[0].value).toBe(12);
    const age = (await series(registry, 'node_bundle_age_seconds'))[0].value;
    expect(age).toBeGreaterThanOrEqual(4);
    expect(age).toBeLessThan(60);
  });

  it('counts fetch outcomes, and refused/unreachable ones as sync errors', async () => {
    const registry = new Registry();
    const metrics = new NodeMetrics(registry, { bundle: () => undefined });
    for (const o of ['applied', 'not-modified', 'refused', 'unreachable', 'unreachable', 'stopped'] as const) metrics.fetched(o);
    const errors = await series(registry, 'node_sync_errors_total');
    expect(Object.fromEntries(errors.map((s) => [s.labels.kind, s.value]))).toEqual({ refused: 1, unreachable: 2 });
    const fetches = await series(registry, 'node_sync_fetches_total');
    expect(fetches.reduce((n, s) => n + s.value, 0)).toBe(5);
  });
});
