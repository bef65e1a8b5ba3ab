import { useState } from 'react';
import { graphql } from '../gql';
import { useConsole, useLoad } from '../context';
import { ErrorBox } from './ErrorBox';
import { Table } from './Table';

/** Health per capability and tenant over a range (issue 32, ADR 0310): the capabilityHealth query. */
export const CapabilityHealthQuery = graphql(`
  query CapabilityHealth($filter: CapabilityHealthFilter!, $page: PageInput) {
    capabilityHealth(filter: $filter, page: $page) {
      from
      to
      rows {
        nodes {
          capabilityId
          tenantId
          calls
          ended
          errorRate
          refusedRate
          p50Ms
          p95Ms
          outcomes {
            completed
            failed
            rejected
            canceled
            refused
            inputRequired
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`);

/** The ranges a team looks at most; the API takes any ISO range up to 93 days. */
export const HEALTH_RANGES = [
  { id: '1h', label: 'Last hour', hours: 1 },
  { id: '6h', label: 'Last 6 hours', hours: 6 },
  { id: '24h', label: 'Last 24 hours', hours: 24 },
  { id: '7d', label: 'Last 7 days', hours: 24 * 7 },
  { id: '30d', label: 'Last 30 days', hours: 24 * 30 },
] as const;

const percent = (rate: number | null | undefined) => (rate == null ? '–' : `${(rate * 100).toFixed(rate > 0 && rate < 0.001 ? 3 : 1)} %`);
const ms = (value: number | null | undefined) =>
  value == null ? '–' : value >= 60_000 ? '≥ 60 s' : `${value.toFixed(value < 10 ? 1 : 0)} ms`;

/** Error rate and p50/p95 per capability and tenant, next to calls, over a chosen range. */
export function HealthPanel({ agentId }: { agentId: string }) {
  const { api } = useConsole();
  const [range, setRange] = useState<(typeof HEALTH_RANGES)[number]['id']>('24h');
  const hours = HEALTH_RANGES.find((r) => r.id === range)!.hours;
  const health = useLoad(`health:${agentId}:${range}`, () =>
    api.request(CapabilityHealthQuery, {
      filter: { agentId, from: new Date(Date.now() - hours * 3_600_000).toISOString() },
      page: { first: 100 },
    }),
  );
  const report = health.data?.capabilityHealth;
  const rows = report?.rows.nodes ?? [];
  return (
    <section aria-labelledby="health-title" className="card">
      <h2 id="health-title">Health per capability</h2>
      <label>
        Range{' '}
        <select value={range} onChange={(e) => setRange(e.target.value as typeof range)}>
          {HEALTH_RANGES.map((r) => (
            <option key={r.id} value={r.id}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      <ErrorBox error={health.error} />
      {report && rows.length === 0 && <p>No calls reported in this range.</p>}
      {rows.length > 0 && (
        // Nine columns do not fit a narrow window: the table scrolls in its own region, which the
        // keyboard can reach (axe: scrollable-region-focusable), never the page.
        <Table
          caption={
            <>
              {new Date(report!.from).toLocaleString()} – {new Date(report!.to).toLocaleString()}: error rate is failed / calls whose
              handler ran; refused means refused by a limit
            </>
          }
          visibleCaption
          region="Health per capability and tenant"
          testId="health-table"
          columns={['Capability', 'Tenant', 'Calls', 'Error rate', 'p50', 'p95', 'Failed', 'Refused', 'Canceled']}
        >
          {rows.map((r) => (
            <tr key={`${r.capabilityId}/${r.tenantId ?? ''}`} data-testid={`health-${r.capabilityId}-${r.tenantId ?? 'all'}`}>
              <td>
                <code>{r.capabilityId}</code>
              </td>
              <td>{r.tenantId ?? 'all'}</td>
              <td>{r.calls}</td>
              <td className={r.errorRate != null && r.errorRate > 0.05 ? 'warn' : undefined}>{percent(r.errorRate)}</td>
              <td>{ms(r.p50Ms)}</td>
              <td>{ms(r.p95Ms)}</td>
              <td>{r.outcomes.failed}</td>
              <td>{r.outcomes.refused}</td>
              <td>{r.outcomes.canceled}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
