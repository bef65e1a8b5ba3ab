import fc from 'fast-check';
import type { CapabilityManifest } from '@cp/capabilities';
import { manifestArb } from '../../../../../libs/capabilities/src/testing/arbitraries';
import { manifestColumns, manifestFromRow } from '@cp/db';
import type { ManifestListRow, ManifestRow } from '../manifests.repository';
import { manifestListProjection, toManifestModel } from './manifest.mapper';
import type { ManifestModel } from './manifest.model';

const date = fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2027-12-31T00:00:00Z'), noInvalidDate: true });

/** A stored row: a valid manifest plus what only the database holds (timestamps, tools, routing, sunset). */
const rowArb: fc.Arbitrary<ManifestRow> = fc
  .record({
    manifest: manifestArb(),
    tools: fc.subarray(['erp', 'ledger']),
    routing: fc.option(fc.record({ terms: fc.subarray(['bill', 'invoice']), negativeTerms: fc.subarray(['payroll']) }), { nil: undefined }),
    sunsetAt: fc.option(date, { nil: undefined }),
    createdAt: date,
    updatedAt: date,
    deprecatedAt: fc.option(date, { nil: null }),
    removedAt: fc.option(date, { nil: null }),
  })
  .map(({ manifest, tools, routing, sunsetAt, ...stamps }) => {
    const m: CapabilityManifest = { ...manifest, tools, ...(routing ? { routing } : {}) };
    if (sunsetAt) m.sunsetAt = sunsetAt.toISOString();
    return { agentId: 'finance-agent', ...manifestColumns(m), routing: m.routing ?? null, ...stamps } as unknown as ManifestRow;
  });

const FIELDS: (keyof ManifestModel)[] = [
  'agentId',
  'id',
  'state',
  'visibility',
  'skill',
  'requiresScopes',
  'allTenants',
  'tenants',
  'handler',
  'limits',
  'owner',
  'replacedBy',
  'deprecationReason',
  'sunsetAt',
  'routing',
  'document',
  'createdAt',
  'updatedAt',
  'deprecatedAt',
  'removedAt',
];

/** Only the columns a projection fetches: what the list's SELECT would return. */
function fetched(row: ManifestRow, columns: ReadonlySet<string>): ManifestListRow {
  const out: Record<string, unknown> = { agentId: row.agentId, capabilityId: row.capabilityId };
  for (const column of columns) out[column] = row[column as keyof ManifestRow];
  return out as ManifestListRow;
}

const full = (row: ManifestRow) =>
  toManifestModel({
    agentId: row.agentId,
    manifest: manifestFromRow(row),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    deprecatedAt: row.deprecatedAt,
    removedAt: row.removedAt,
  });

describe('manifestListProjection', () => {
  it('gives every field the value toManifestModel gives it, from only the columns it fetches', () => {
    fc.assert(
      fc.property(rowArb, fc.subarray(FIELDS, { minLength: 1 }), (row, fields) => {
        const projection = manifestListProjection(new Set(fields));
        const model = projection.toModel(fetched(row, projection.columns));
        const expected = full(row);
        for (const field of fields) expect(model[field]).toEqual(expected[field]);
      }),
    );
  });

  it('fetches no JSON column for id, state, visibility and the usage key', () => {
    const projection = manifestListProjection(new Set(['id', 'state', 'visibility', 'usage', '__typename']));
    expect([...projection.columns].sort()).toEqual(['state', 'visibility']);
  });

  it('always carries the key, which `usage` resolves from', () => {
    const projection = manifestListProjection(new Set(['usage']));
    expect(projection.columns.size).toBe(0);
    expect(projection.toModel({ agentId: 'a', capabilityId: 'c' })).toEqual({ agentId: 'a', id: 'c' });
  });

  it('ignores names that are not fields of the type', () => {
    expect(manifestListProjection(new Set(['constructor', 'toString', 'hasOwnProperty'])).columns.size).toBe(0);
  });
});
