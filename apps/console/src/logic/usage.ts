import type { UsageQuery } from '../gql/graphql';

type Day = UsageQuery['usage']['nodes'][number];

/** Rows for a stacked chart: one per day (ascending), one numeric column per series value. */
export function pivot(days: Day[], seriesOf: (d: Day) => string): { rows: Record<string, string | number>[]; series: string[] } {
  const series = [...new Set(days.map(seriesOf))].sort();
  const byDay = new Map<string, Record<string, string | number>>();
  for (const d of days) {
    const row = byDay.get(d.day) ?? { day: d.day, ...Object.fromEntries(series.map((s) => [s, 0])) };
    const key = seriesOf(d);
    row[key] = (row[key] as number) + d.calls;
    byDay.set(d.day, row);
  }
  return { rows: [...byDay.values()].sort((a, b) => String(a.day).localeCompare(String(b.day))), series };
}

/** One capability's calls per node over the impact window (capabilityImpact's `nodes`). */
export interface NodeCalls {
  capabilityId: string;
  nodes: { nodeId: string; calls: number }[];
}

/** Rows for a stacked chart: one per node (most calls first), one numeric column per capability. */
export function byNode(impacts: NodeCalls[]): { rows: Record<string, string | number>[]; series: string[] } {
  const series = [...new Set(impacts.filter((i) => i.nodes.some((n) => n.calls > 0)).map((i) => i.capabilityId))].sort();
  const rows = new Map<string, Record<string, string | number>>();
  for (const impact of impacts) {
    for (const n of impact.nodes) {
      if (n.calls <= 0) continue;
      const row = rows.get(n.nodeId) ?? { node: n.nodeId, ...Object.fromEntries(series.map((s) => [s, 0])) };
      row[impact.capabilityId] = (row[impact.capabilityId] as number) + n.calls;
      rows.set(n.nodeId, row);
    }
  }
  const total = (r: Record<string, string | number>) => series.reduce((sum, s) => sum + (r[s] as number), 0);
  return { rows: [...rows.values()].sort((a, b) => total(b) - total(a) || String(a.node).localeCompare(String(b.node))), series };
}
