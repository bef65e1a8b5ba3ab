import { toManifestDocument, type ManifestLimits, type RoutingHintsBlock, type SkillBlock } from '@cp/capabilities';
import { MANIFEST_ROW_COLUMNS, manifestFromRow } from '@cp/db';
import type { ManifestColumn, ManifestListRow, ManifestRecord, ManifestRow } from '../manifests.repository';
import type { ManifestModel } from './manifest.model';

export function toManifestModel(r: Omit<ManifestRecord, 'agentTeamId'>): ManifestModel {
  const m = r.manifest;
  return {
    agentId: r.agentId,
    id: m.id,
    state: m.state,
    visibility: m.visibility,
    skill: m.skill,
    requiresScopes: m.requiresScopes,
    allTenants: m.tenants === '*',
    tenants: m.tenants === '*' ? [] : m.tenants,
    handler: m.handler,
    limits: m.limits,
    owner: m.owner,
    replacedBy: m.replacedBy ?? null,
    deprecationReason: m.deprecationReason ?? null,
    sunsetAt: m.sunsetAt ? new Date(m.sunsetAt) : null,
    routing: routingModel(m.routing),
    document: toManifestDocument(m),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    deprecatedAt: r.deprecatedAt,
    removedAt: r.removedAt,
  };
}

const routingModel = (routing: RoutingHintsBlock | undefined) =>
  routing ? { terms: routing.terms, negativeTerms: routing.negativeTerms } : null;

type Row = ManifestListRow;
type FieldSource<F extends keyof ManifestModel> = { columns: ManifestColumn[]; value: (row: Row) => ManifestModel[F] };

/**
 * Each field of the GraphQL type: the columns it needs and its value from a row that has them.
 * The values are toManifestModel's, read from the row as manifestFromRow reads it; a test holds
 * the two to the same answer for every field. Complete by type: a new field of ManifestModel
 * does not compile until it says where it comes from.
 */
const FIELDS: { [F in keyof ManifestModel]-?: FieldSource<F> } = {
  agentId: { columns: [], value: (row) => row.agentId },
  id: { columns: [], value: (row) => row.capabilityId },
  state: { columns: ['state'], value: (row) => row.state! },
  visibility: { columns: ['visibility'], value: (row) => row.visibility! },
  skill: { columns: ['skill'], value: (row) => row.skill as unknown as SkillBlock },
  requiresScopes: { columns: ['requiresScopes'], value: (row) => row.requiresScopes! },
  allTenants: { columns: ['tenantsAll'], value: (row) => row.tenantsAll! },
  tenants: { columns: ['tenantsAll', 'tenants'], value: (row) => (row.tenantsAll ? [] : row.tenants!) },
  handler: { columns: ['handler'], value: (row) => row.handler! },
  limits: { columns: ['limits'], value: (row) => row.limits as unknown as ManifestLimits },
  owner: { columns: ['ownerTeamId'], value: (row) => row.ownerTeamId! },
  replacedBy: { columns: ['replacedBy'], value: (row) => row.replacedBy ?? null },
  deprecationReason: { columns: ['deprecationReason'], value: (row) => row.deprecationReason ?? null },
  sunsetAt: { columns: ['sunsetAt'], value: (row) => row.sunsetAt ?? null },
  routing: {
    columns: ['routing'],
    value: (row) =>
      routingModel(row.routing !== null && typeof row.routing === 'object' ? (row.routing as unknown as RoutingHintsBlock) : undefined),
  },
  // The document is the whole manifest: every column manifestFromRow reads.
  document: { columns: [...MANIFEST_ROW_COLUMNS], value: (row) => toManifestDocument(manifestFromRow(row as ManifestRow)) },
  createdAt: { columns: ['createdAt'], value: (row) => row.createdAt! },
  updatedAt: { columns: ['updatedAt'], value: (row) => row.updatedAt! },
  deprecatedAt: { columns: ['deprecatedAt'], value: (row) => row.deprecatedAt ?? null },
  removedAt: { columns: ['removedAt'], value: (row) => row.removedAt ?? null },
};

const isModelField = (name: string): name is keyof ManifestModel => Object.hasOwn(FIELDS, name);

/**
 * What a list needs for the fields a query selects: the columns to fetch, and a mapper that fills
 * in only those fields (a page of 100 asked for `id state skill { name }` neither fetches nor
 * builds 100 manifest documents). Fields resolved elsewhere (`usage`) need nothing here but the
 * key, which every model carries for them.
 */
export function manifestListProjection(selected: ReadonlySet<string>): {
  columns: Set<ManifestColumn>;
  toModel: (row: Row) => Partial<ManifestModel>;
} {
  const fields = [...selected].filter(isModelField);
  const columns = new Set(fields.flatMap((field) => FIELDS[field].columns));
  return {
    columns,
    toModel: (row) => {
      const model: Partial<Record<keyof ManifestModel, unknown>> = { agentId: row.agentId, id: row.capabilityId };
      for (const field of fields) model[field] = FIELDS[field].value(row);
      return model as Partial<ManifestModel>;
    },
  };
}
