import type {
  AgentBase,
  AgentExtension,
  AgentInterface,
  CapabilityManifest,
  ManifestLimits,
  RoutingHintsBlock,
  SkillBlock,
  UpstreamSpec,
} from '@cp/capabilities';
import { wasRemovedFromPreview } from '@cp/capabilities';
import { Prisma } from '../../../prisma/generated/client';
import type { AgentModel, CapabilityManifestModel } from '../../../prisma/generated/models';

/** Row <-> domain conversions shared by every repository that reads or writes the registry. */

/** Every column of a manifest row that manifestFromRow reads besides the key (agentId, capabilityId). */
export const MANIFEST_ROW_COLUMNS = [
  'state',
  'visibility',
  'skill',
  'requiresScopes',
  'tenantsAll',
  'tenants',
  'handler',
  'tools',
  'limits',
  'ownerTeamId',
  'replacedBy',
  'deprecationReason',
  'sunsetAt',
  'deprecatedAt',
  'routing',
  'upstream',
] as const satisfies readonly (keyof CapabilityManifestModel)[];

export function manifestFromRow(row: CapabilityManifestModel): CapabilityManifest {
  const manifest: CapabilityManifest = {
    id: row.capabilityId,
    state: row.state,
    visibility: row.visibility,
    skill: row.skill as unknown as SkillBlock,
    requiresScopes: row.requiresScopes,
    tenants: row.tenantsAll ? '*' : row.tenants,
    handler: row.handler,
    limits: row.limits as unknown as ManifestLimits,
    owner: row.ownerTeamId,
  };
  if (row.tools.length > 0) manifest.tools = [...row.tools];
  if (row.replacedBy !== null) manifest.replacedBy = row.replacedBy;
  if (row.deprecationReason !== null) manifest.deprecationReason = row.deprecationReason;
  if (row.sunsetAt !== null) manifest.sunsetAt = row.sunsetAt.toISOString();
  if (row.deprecatedAt !== null && (row.state === 'deprecated' || row.state === 'removed'))
    manifest.deprecatedAt = row.deprecatedAt.toISOString();
  if (wasRemovedFromPreview(row)) manifest.removedFromPreview = true;
  if (row.routing !== null && typeof row.routing === 'object') manifest.routing = row.routing as unknown as RoutingHintsBlock;
  if (row.upstream !== null && typeof row.upstream === 'object') manifest.upstream = row.upstream as unknown as UpstreamSpec;
  return manifest;
}

/** The columns a manifest owns (timestamps of lifecycle events are set by the caller). */
export function manifestColumns(m: CapabilityManifest) {
  return {
    capabilityId: m.id,
    state: m.state,
    visibility: m.visibility,
    skill: m.skill as unknown as Prisma.InputJsonValue,
    requiresScopes: [...m.requiresScopes],
    tenantsAll: m.tenants === '*',
    tenants: m.tenants === '*' ? [] : [...m.tenants],
    handler: m.handler,
    tools: [...(m.tools ?? [])],
    limits: m.limits as unknown as Prisma.InputJsonValue,
    ownerTeamId: m.owner,
    replacedBy: m.replacedBy ?? null,
    deprecationReason: m.deprecationReason ?? null,
    sunsetAt: m.sunsetAt ? new Date(m.sunsetAt) : null,
    routing: m.routing ? (m.routing as unknown as Prisma.InputJsonValue) : Prisma.DbNull,
    upstream: m.upstream ? (m.upstream as unknown as Prisma.InputJsonValue) : Prisma.DbNull,
  };
}

export function agentBaseFromRow(row: AgentModel): AgentBase {
  const base: AgentBase = {
    name: row.name,
    description: row.description,
    version: row.version,
    supportedInterfaces: row.supportedInterfaces as unknown as AgentInterface[],
    defaultInputModes: row.defaultInputModes,
    defaultOutputModes: row.defaultOutputModes,
    protocol: {
      streaming: row.streaming,
      pushNotifications: row.pushNotifications,
      extendedAgentCard: row.extendedCardEnabled,
      versions: row.protocolVersions,
      webhookAllow: row.webhookAllow,
      // Only when set, so agents without upstreams keep the bundles (and hashes) they had.
      ...(row.upstreamAllow.length > 0 ? { upstreamAllow: row.upstreamAllow } : {}),
    },
    extensions: row.extensions as unknown as AgentExtension[],
  };
  if (row.provider !== null) base.provider = row.provider as unknown as AgentBase['provider'];
  if (row.documentationUrl !== null) base.documentationUrl = row.documentationUrl;
  if (row.iconUrl !== null) base.iconUrl = row.iconUrl;
  if (row.securitySchemes !== null) base.securitySchemes = row.securitySchemes as Record<string, unknown>;
  if (row.securityRequirements !== null) base.securityRequirements = row.securityRequirements as unknown[];
  return base;
}

const json = (value: unknown) => value as Prisma.InputJsonValue;

export function agentColumns(base: AgentBase) {
  return {
    name: base.name,
    description: base.description,
    version: base.version,
    provider: base.provider ? json(base.provider) : undefined,
    documentationUrl: base.documentationUrl ?? null,
    iconUrl: base.iconUrl ?? null,
    supportedInterfaces: json(base.supportedInterfaces),
    securitySchemes: base.securitySchemes ? json(base.securitySchemes) : undefined,
    securityRequirements: base.securityRequirements ? json(base.securityRequirements) : undefined,
    defaultInputModes: base.defaultInputModes,
    defaultOutputModes: base.defaultOutputModes,
    extensions: json(base.extensions),
    streaming: base.protocol.streaming,
    pushNotifications: base.protocol.pushNotifications,
    extendedCardEnabled: base.protocol.extendedAgentCard,
    protocolVersions: base.protocol.versions ?? ['1.0'],
    webhookAllow: base.protocol.webhookAllow ?? [],
    upstreamAllow: base.protocol.upstreamAllow ?? [],
  };
}
