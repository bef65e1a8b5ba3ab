/** The public and extended A2A 1.0 cards: pure functions of (snapshot, caller). */
import { cardVersion } from './card-version';
import type { AgentCard, AgentSkill } from './card-types';
import { canBeExtendedOnly } from './entitlement';
import { manifestsForCaller } from './select';
import { projectSkills } from './skill-projection';
import type { AgentExtension, Caller, RegistrySnapshot } from './types';

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

/** Agent base + skills → card. Unset optional fields are omitted (proto field presence). */
export function assembleCard(snapshot: RegistrySnapshot, skills: AgentSkill[], extendedFlag = declaresExtendedCard(snapshot)): AgentCard {
  const a = snapshot.agent;
  const card: AgentCard = {
    name: a.name,
    description: a.description,
    version: cardVersion(a.version, skills),
    supportedInterfaces: a.supportedInterfaces.map((i) => ({ ...i })),
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
  if (a.securityRequirements !== undefined) card.securityRequirements = structuredClone(a.securityRequirements);
  return card;
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
