/** A2A 1.0 AgentCard as wire JSON (camelCase, unset optional fields omitted). */
import type { AgentExtension, AgentInterface, SkillBlock } from './types';

/**
 * A skill of our cards: the manifest's skill block under its capability id (skill-projection.ts).
 * A2A's AgentSkill also has `securityRequirements`, which no manifest sets; the signing payload
 * still knows it, for cards that have it (card-payload.ts).
 */
export type AgentSkill = { id: string } & SkillBlock;

export interface AgentCapabilities {
  streaming: boolean;
  pushNotifications: boolean;
  extensions: AgentExtension[];
  extendedAgentCard: boolean;
}

export interface AgentCard {
  name: string;
  description: string;
  version: string;
  supportedInterfaces: AgentInterface[];
  capabilities: AgentCapabilities;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
  securitySchemes?: Record<string, unknown>;
  securityRequirements?: unknown[];
  /** A2A §8.4 JWS signatures over the card's canonical form (added by the control plane, ADR 0130). */
  signatures?: { protected: string; signature: string; header?: Record<string, unknown> }[];
}
