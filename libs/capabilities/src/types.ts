/**
 * Domain types of the capability core. camelCase in code; the manifest DOCUMENT format
 * (files, GraphQL JSON input, export) is snake_case at the top level, see manifest-document.ts.
 */

import type { SkillBlock } from './manifest-schema';
import type { UpstreamSpec } from './upstream';

export { CAPABILITY_STATES, VISIBILITIES, COST_CLASSES } from './vocabulary';
import type { CapabilityState, Visibility, CostClass } from './vocabulary';
export type { CapabilityState, Visibility, CostClass };

/**
 * The A2A 1.0 AgentSkill minus its id (the id lives at the top of the manifest). Declared once, as
 * skillBlockSchema in manifest-schema.ts; the type is inferred from it (ADR 0213).
 */
export type { SkillBlock };

/** Known keys are typed; every other key is a non-negative number (enforced by validation). */
export interface ManifestLimits {
  cost_class?: CostClass;
  [key: string]: number | string | undefined;
}

/**
 * Routing-only hints (ADR 0091): words that should route here (synonyms, jargon such as "credit
 * memo" or "cut a PO") and words that mean "not this one". Read by the router only: no card, no
 * projection a caller sees carries them.
 */
export interface RoutingHintsBlock {
  terms: string[];
  negativeTerms: string[];
}

export interface CapabilityManifest {
  id: string;
  state: CapabilityState;
  visibility: Visibility;
  skill: SkillBlock;
  requiresScopes: string[];
  tenants: '*' | string[];
  handler: string;
  /**
   * Server-side only (never in a card): the tools this capability's handler may obtain tool
   * tokens for through token exchange. Absent = none (an empty list is normalised away).
   */
  tools?: string[];
  limits: ManifestLimits;
  owner: string;
  replacedBy?: string | null;
  deprecationReason?: string | null;
  /**
   * The announced removal date (ISO 8601 UTC, `sunset_at` in documents): a deprecated capability
   * is never retired before it, and nodes send it as the `Sunset` header (RFC 8594). Absent or
   * null: none announced (retirement then waits for the usage rule alone).
   */
  sunsetAt?: string | null;
  /**
   * When the capability was deprecated (ISO 8601 UTC), for the `Deprecation` header (RFC 9745).
   * Derived by the registry from its lifecycle timestamps; not part of manifest documents.
   */
  deprecatedAt?: string;
  /**
   * Set on a removed manifest that was never generally available (removed straight from preview,
   * or recorded as removed without a deprecation): its tombstone is shown only to callers who
   * could have used it as a preview, so it reveals nothing to tenants never opted in.
   * Derived by the registry from its lifecycle timestamps; not part of manifest documents.
   */
  removedFromPreview?: boolean;
  /** Absent when the manifest has none. */
  routing?: RoutingHintsBlock;
  /**
   * Server-side only (never in a card, ADR 0230): the upstream A2A agent that serves this
   * capability through the node acting as a gateway. Absent: an in-process handler serves it.
   */
  upstream?: UpstreamSpec;
}

/** null = anonymous (no verified token). */
export type Caller = { principal: string; tenant: string; scopes: readonly string[] } | null;

export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: Record<string, unknown>;
}

export interface AgentInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
}

export interface ProtocolSettings {
  streaming: boolean;
  pushNotifications: boolean;
  /** The agent's switch: when false the card never declares an extended card. */
  extendedAgentCard: boolean;
  /**
   * A2A versions served (ADRs 0160, 0165): "1.0" always; with "0.3" the card also lists each JSON-RPC and HTTP+JSON
   * interface at 0.3 and nodes answer 0.3 calls there. Absent: ["1.0"].
   */
  versions?: string[];
  /**
   * Hosts (`hooks.internal`, `*.corp.example`), IPs or CIDRs push-notification webhooks may reach
   * although private or loopback (ADR 0162). Never in a card; nodes read it from the bundle.
   */
  webhookAllow?: string[];
  /**
   * Hosts, IPs or CIDRs upstream agents (ADR 0230) may be reached at although private; same rule as
   * webhookAllow, changed by platform admins only. Never in a card; nodes read it from the bundle.
   */
  upstreamAllow?: string[];
}

export interface AgentBase {
  name: string;
  description: string;
  version: string;
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
  supportedInterfaces: AgentInterface[];
  securitySchemes?: Record<string, unknown>;
  securityRequirements?: unknown[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  protocol: ProtocolSettings;
  extensions: AgentExtension[];
}

/** A rate budget per tenant × capability: at most `calls` in any `windowS` seconds (shared by every node of the agent). */
export interface CostBudget {
  calls: number;
  windowS: number;
}
/** Budgets per cost class, set per agent; a class without one is not rate limited. */
export type CostBudgets = Partial<Record<CostClass, CostBudget>>;

export interface RegistrySnapshot {
  agentId: string;
  revision: number;
  agent: AgentBase;
  manifests: CapabilityManifest[];
  /** Tenants opted in to this agent's previews. */
  previewTenants: string[];
  /**
   * The registry's lineage (the agent's creation time). Revisions only grow within one epoch; a
   * registry recreated from scratch starts a new epoch, so nodes accept its lower revisions.
   */
  epoch?: string;
  /** The agent's rate budgets by cost class (absent: none). Nodes enforce them (issue 14). */
  costBudgets?: CostBudgets;
}

/** One problem, at a JSON path such as `$.skill.inputModes[1]` or `$[3].id`. */
export interface ValidationIssue {
  path: string;
  message: string;
}
