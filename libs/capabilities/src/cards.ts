/** The public and extended A2A 1.0 cards: pure functions of (snapshot, caller). */
import { cardVersion } from './card-version';
import type { AgentCard, AgentSkill } from './card-types';
import { canBeExtendedOnly } from './entitlement';
import { manifestsForCaller } from './select';
import { projectSkills } from './skill-projection';
import type { AgentBase, AgentExtension, Caller, RegistrySnapshot } from './types';

/**
 * capabilities.extendedAgentCard: true exactly when the agent's switch is on AND some live
 * manifest can reach an extended card without being public; otherwise GetExtendedAgentCard would
 * only repeat the public card.
 */
export function declaresExtendedCard(snapshot: RegistrySnapshot): boolean {
  if (!snapshot.agent.protocol.extendedAgentCard) return false;
  const preview = new Set(snapshot.previewTenants);
  return snapshot.manifests.some((m) => canBeExtendedOnly(m, preview));
}

function copyExtension(e: AgentExtension): AgentExtension {
  const out: AgentExtension = { uri: e.uri };
  if (e.description !== undefined) out.description = e.description;
  if (e.required !== undefined) out.required = e.required;
  if (e.params !== undefined) out.params = structuredClone(e.params);
  return out;
}

/**
 * The agent's interfaces, then, when it serves 0.3, each JSON-RPC and HTTP+JSON interface again at
 * 0.3 (after every 1.0 one, so 1.0 stays preferred): one interface per protocol version (ADRs 0160,
 * 0165). A 0.3 HTTP+JSON client appends `/v1/…` to the same URL a 1.0 client appends `/…` to.
 */
export function cardInterfaces(a: AgentBase): AgentBase['supportedInterfaces'] {
  const own = a.supportedInterfaces.map((i) => ({ ...i }));
  if (!(a.protocol.versions ?? []).includes('0.3')) return own;
  const listed = new Set(own.filter((i) => i.protocolVersion === '0.3').map((i) => i.url));
  const mirrored = own
    .filter(
      (i) => (i.protocolBinding === 'JSONRPC' || i.protocolBinding === 'HTTP+JSON') && i.protocolVersion === '1.0' && !listed.has(i.url),
    )
    .map((i) => ({ ...i, protocolVersion: '0.3' }));
  return [...own, ...mirrored];
}

/** Agent base + skills → card. Unset optional fields are omitted (proto field presence). */
export function assembleCard(snapshot: RegistrySnapshot, skills: AgentSkill[], extendedFlag = declaresExtendedCard(snapshot)): AgentCard {
  const a = snapshot.agent;
  const card: AgentCard = {
    name: a.name,
    description: a.description,
    version: cardVersion(a.version, skills),
    supportedInterfaces: cardInterfaces(a),
    capabilities: {
      streaming: a.protocol.streaming,
      pushNotifications: a.protocol.pushNotifications,
      extensions: a.extensions.map(copyExtension),
      extendedAgentCard: extendedFlag,
    },
    defaultInputModes: [...a.defaultInputModes],
    defaultOutputModes: [...a.defaultOutputModes],
    skills,
  };
  if (a.provider !== undefined) card.provider = { ...a.provider };
  if (a.documentationUrl !== undefined) card.documentationUrl = a.documentationUrl;
  if (a.iconUrl !== undefined) card.iconUrl = a.iconUrl;
  if (a.securitySchemes !== undefined) card.securitySchemes = structuredClone(a.securitySchemes);
  if (a.securityRequirements !== undefined) card.securityRequirements = securityRequirementsOf(snapshot);
  return card;
}

/**
 * What agent nodes really accept: the agent's requirements, plus an empty alternative when some
 * live capability is public, because nodes then serve callers without a token (A2A: a request
 * satisfies securityRequirements when it satisfies any one entry; `{}` requires nothing).
 */
export function securityRequirementsOf(snapshot: RegistrySnapshot): unknown[] {
  const declared = structuredClone(snapshot.agent.securityRequirements ?? []);
  const anonymousServed = manifestsForCaller(snapshot, null).length > 0;
  const hasEmpty = declared.some((r) => isEmptyRequirement(r));
  return anonymousServed && !hasEmpty ? [...declared, {}] : declared;
}

function isEmptyRequirement(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const schemes = (r as { schemes?: unknown }).schemes;
  return Object.keys(r).length === 0 || (typeof schemes === 'object' && schemes !== null && Object.keys(schemes).length === 0);
}

/** Served unauthenticated at /.well-known/agent-card.json: only what any caller may know. */
export function buildPublicCard(snapshot: RegistrySnapshot): AgentCard {
  return assembleCard(snapshot, projectSkills(manifestsForCaller(snapshot, null)));
}

/**
 * The card GetExtendedAgentCard returns to this caller. For anonymous it is the public card (an
 * anonymous caller is never served an extended card; the adapter refuses before calling this).
 */
export function buildExtendedCard(snapshot: RegistrySnapshot, caller: Caller): AgentCard {
  return assembleCard(snapshot, projectSkills(manifestsForCaller(snapshot, caller)));
}
