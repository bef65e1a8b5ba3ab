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

/** Who still calls a capability: calls and last call per tenant, most calls first. */
export function remainingCallers(days: Day[], capabilityId: string): { tenantId: string; calls: number; lastCallAt: string }[] {
  const by = new Map<string, { tenantId: string; calls: number; lastCallAt: string }>();
  for (const d of days) {
    if (d.capabilityId !== capabilityId) continue;
    const c = by.get(d.tenantId) ?? { tenantId: d.tenantId, calls: 0, lastCallAt: d.lastCallAt };
    c.calls += d.calls;
    if (d.lastCallAt > c.lastCallAt) c.lastCallAt = d.lastCallAt;
    by.set(d.tenantId, c);
  }
  return [...by.values()].sort((a, b) => b.calls - a.calls || a.tenantId.localeCompare(b.tenantId));
}
