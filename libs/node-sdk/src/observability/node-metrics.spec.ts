import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { buildNodeBundle, financeAgentExample } from '@cp/capabilities';
import { ActiveBundle } from '../active-bundle';
import { AGENT_CARD_PATH, registerCardRoute } from '../a2a/card-route';
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
      metrics.outcome(`cap-${i}`, 'failed');
    }
    metrics.outcome('invoice-lookup', 'completed');
    const outcomes = await series(registry, 'a2a_capability_outcomes_total');
    expect(outcomes.map((s) => `${s.labels.capability}/${s.labels.outcome}=${s.value}`).sort()).toEqual([
      'invoice-lookup/completed=1',
      'other/failed=1000',
    ]);
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
  it('times the public card in its handler: every answer observed, and no onResponse hook on the route (ADR 143)', async () => {
    const f = financeAgentExample();
    const served = new ActiveBundle(
      buildNodeBundle({ agentId: 'finance-agent', revision: 1, agent: f.agent, manifests: f.manifests, previewTenants: [] }),
    );
    const registry = new Registry();
    const app = Fastify();
    registerCardRoute(app, () => served, 60, new NodeMetrics(registry, { bundle: () => served }));
    await app.ready();
    try {
      // Route-level hooks are listed per route; an onResponse hook would make Fastify attach response listeners to every request.
      expect(app.printRoutes({ includeHooks: true, commonPrefix: false })).not.toContain('onResponse');
      const first = await app.inject({ url: AGENT_CARD_PATH });
      expect(first.statusCode).toBe(200);
      const again = await app.inject({ url: AGENT_CARD_PATH, headers: { 'if-none-match': String(first.headers.etag) } });
      expect(again.statusCode).toBe(304);
      const [metric] = (await registry.getMetricsAsJSON()).filter((m) => m.name === 'a2a_card_duration_seconds');
      const values = metric.values as { metricName?: string; labels: Record<string, string | number>; value: number }[];
      expect(values.find((v) => v.metricName === 'a2a_card_duration_seconds_count')?.value).toBe(2);
      const sum = values.find((v) => v.metricName === 'a2a_card_duration_seconds_sum')?.value ?? -1;
      expect(sum).toBeGreaterThan(0);
      expect(sum).toBeLessThan(1);
      const cards = await series(registry, 'a2a_card_requests_total');
      expect(
        cards
          .filter((c) => c.value > 0)
          .map((c) => `${c.labels.kind}/${c.labels.status}=${c.value}`)
          .sort(),
      ).toEqual(['public/200=1', 'public/304=1']);
    } finally {
      await app.close();
    }
  });
});
