import { toManifestDocument } from '@cp/capabilities';
import type { ManifestListRecord } from '../manifests.repository';
import type { ManifestModel } from './manifest.model';

export function toManifestModel(r: ManifestListRecord): ManifestModel {
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
    routing: m.routing ? { terms: m.routing.terms, negativeTerms: m.routing.negativeTerms } : null,
    document: toManifestDocument(m),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    deprecatedAt: r.deprecatedAt,
    removedAt: r.removedAt,
  };
}
