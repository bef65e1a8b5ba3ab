/**
 * Dashboards and alerts as code (issue 17): the Prometheus rule file and the Grafana dashboard in
 * deploy/observability are parsed here, every PromQL expression with Prometheus's own grammar
 * (@prometheus-io/lezer-promql), and every metric they name must be one the apps export (the
 * catalogs SERVER_METRICS and NODE_METRICS, histogram series, the process metrics a real app
 * registry collects, `up`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';
import { createMetricsRegistry, SERVER_METRICS } from '@cp/common';
import { NODE_METRICS } from '@cp/node-sdk';

const ROOT = join(__dirname, '..', '..');
const RULES = join(ROOT, 'deploy/observability/prometheus-rules.yml');
const DASHBOARD = join(ROOT, 'deploy/observability/grafana-dashboard.json');

/** Every series name a scrape of our apps can return (process metrics as a real app registry names them). */
async function exported(): Promise<Set<string>> {
  const names = new Set<string>(['up']);
  for (const metric of await createMetricsRegistry('as-code').getMetricsAsJSON()) {
    // prom-client types `type` as a numeric enum; at run time it is the text format's type name.
    if ((metric.type as unknown as string) === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
    else names.add(metric.name);
  }
  for (const def of [...Object.values(SERVER_METRICS), ...Object.values(NODE_METRICS)]) {
    if (def.type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(def.name + suffix);
    else names.add(def.name);
  }
  return names;
}

/** Syntax errors and the metric names of a PromQL expression. */
function inspect(expr: string): { errors: string[]; metrics: string[] } {
  const tree = parser.parse(expr);
  const errors: string[] = [];
  const metrics: string[] = [];
  tree.iterate({
    enter: (node) => {
      if (node.type.isError) errors.push(`syntax error at ${node.from}: "${expr.slice(node.from, node.from + 20)}"`);
      if (node.name === 'VectorSelector') {
        const id = node.node.getChild('Identifier');
        if (id) metrics.push(expr.slice(id.from, id.to));
      }
    },
  });
  return { errors, metrics };
}

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

describe('deploy/observability as code', () => {
  let known: Set<string>;
  beforeAll(async () => {
    known = await exported();
    expect(known.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect(known.has('made_up_metric_total')).toBe(false);
  });

  it('the checker itself: finds syntax errors and metric names', () => {
    expect(inspect('sum(rate(a_total[5m])) by (x)').errors).toEqual([]);
    expect(inspect('sum(rate(a_total[5m])) by (x)').metrics).toEqual(['a_total']);
    expect(inspect('sum(rate(a_total[5m]').errors.length).toBeGreaterThan(0);
    expect(inspect('rate(a_total[5m]) + ').errors.length).toBeGreaterThan(0);
    expect(inspect('histogram_quantile(0.9, sum by (le) (rate(b_bucket[5m]))) > on() group_left c').metrics).toEqual(['b_bucket', 'c']);
  });

  it('the metric catalogs follow Prometheus naming: snake case, counters end in _total, units in the name, no unbounded labels', () => {
    for (const def of [...Object.values(SERVER_METRICS), ...Object.values(NODE_METRICS)]) {
      expect(def.name).toMatch(/^[a-z][a-z0-9_]*$/);
      if (def.type === 'counter') expect(def.name).toMatch(/_total$/);
      if (def.type === 'histogram') expect(def.name).toMatch(/_seconds$/);
      for (const label of def.labels)
        expect(['principal', 'tenant', 'caller', 'message', 'text', 'token', 'operationName']).not.toContain(label);
    }
  });

  it('every alert rule parses, names only exported metrics, and has a summary and a severity', () => {
    const doc = parseYaml(readFileSync(RULES, 'utf8')) as { groups: { name: string; rules: Rule[] }[] };
    const rules = doc.groups.flatMap((g) => g.rules);
    expect(rules.length).toBeGreaterThanOrEqual(8);
    for (const rule of rules) {
      const { errors, metrics } = inspect(rule.expr);
      expect({ rule: rule.alert, errors }).toEqual({ rule: rule.alert, errors: [] });
      expect(metrics.length).toBeGreaterThan(0);
      for (const m of metrics)
        expect({ rule: rule.alert, metric: m, exported: known.has(m) }).toEqual({ rule: rule.alert, metric: m, exported: true });
      expect(rule.labels?.severity).toMatch(/^(critical|warning|info)$/);
      expect(rule.annotations?.summary).toBeTruthy();
      if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smhd]$/);
    }
    // What the issue asks alerts for.
    const alerts = rules.map((r) => r.alert);
    for (const a of [
      'FleetPropagationSlow',
      'BundleNacked',
      'NodeNotSeen',
      'RetirementRunFailed',
      'DeprecationNoticeDeadLettered',
      'CardErrorRateHigh',
      'CardLatencyHigh',
      'CapabilityErrorRateHigh',
      'CapabilityLatencyHigh',
    ])
      expect(alerts).toContain(a);
  });

  it('every dashboard panel query parses and names only exported metrics; panels do not overlap', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      uid: string;
      panels: {
        id: number;
        title: string;
        gridPos: { x: number; y: number; w: number; h: number };
        targets: { refId: string; expr: string }[];
      }[];
    };
    expect(dashboard.uid).toBe('capability-control-plane');
    const ids = new Set<number>();
    const cells = new Set<string>();
    for (const panel of dashboard.panels) {
      expect(ids.has(panel.id)).toBe(false);
      ids.add(panel.id);
      expect(panel.targets.length).toBeGreaterThan(0);
      for (const target of panel.targets) {
        const { errors, metrics } = inspect(target.expr);
        expect({ panel: panel.title, errors }).toEqual({ panel: panel.title, errors: [] });
        for (const m of metrics)
          expect({ panel: panel.title, metric: m, exported: known.has(m) }).toEqual({ panel: panel.title, metric: m, exported: true });
      }
      for (let x = panel.gridPos.x; x < panel.gridPos.x + panel.gridPos.w; x++)
        for (let y = panel.gridPos.y; y < panel.gridPos.y + panel.gridPos.h; y++) {
          expect(cells.has(`${x},${y}`)).toBe(false);
          cells.add(`${x},${y}`);
        }
    }
    // Every exported metric family is on the dashboard (a metric nobody looks at is dead weight).
    const shown = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => inspect(t.expr).metrics)));
    for (const def of [...Object.values(SERVER_METRICS), ...Object.values(NODE_METRICS)]) {
      const names = def.type === 'histogram' ? [`${def.name}_bucket`] : [def.name];
      expect({ metric: def.name, shown: names.some((n) => shown.has(n)) }).toEqual({ metric: def.name, shown: true });
    }
  });
});
