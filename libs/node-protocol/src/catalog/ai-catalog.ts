/**
 * The AI Catalog (Agent-Card/ai-catalog, `application/ai-catalog+json`) this product publishes:
 * pure functions of what the registry already knows (snapshots) and of the caller (ADR 0250).
 * One entry per agent the caller may see, with a stable `urn:air` identifier; an agent the caller
 * may not see is simply not built, so its absence is the absence of an agent that does not exist.
 */
import { declaresExtendedCard, manifestsForCaller, type Caller, type CapabilityManifest, type RegistrySnapshot } from '@cp/capabilities';

export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
export const A2A_AGENT_CARD_MEDIA_TYPE = 'application/a2a-agent-card+json';
/** The specification text's version ("Major.Minor"; every example of the text says 1.0: ADR 0250). */
export const AI_CATALOG_SPEC_VERSION = '1.0';
export const AI_CATALOG_PATH = '/.well-known/ai-catalog.json';
const AGENT_CARD_PATH = '/.well-known/agent-card.json';
/**
 * The `{namespace}` of an agent's `urn:air`: agent ids are unique in the registry, and a fixed
 * namespace (not the team) keeps the identifier stable when an agent changes teams and lets a node,
 * which does not know its team, name itself exactly as the control plane does (ADR 0250).
 */
export const AGENT_NAMESPACE = 'agent';

export interface AiCatalogHost {
  displayName: string;
  identifier?: string;
  documentationUrl?: string;
}

export interface AiCatalogPublisher {
  identifier: string;
  displayName: string;
}

/** One capability's lifecycle as the caller may know it (only what is not plain `ga`). */
export interface CapabilityLifecycle {
  id: string;
  status: 'preview' | 'deprecated';
  deprecatedAt?: string;
  sunsetAt?: string;
  /** The replacement capability id, only when the caller may see it (as deprecation headers do). */
  replacement?: string;
}

/** The entry's `metadata.lifecycle` (ADR 0250: the spec's one extension point is `metadata`). */
export interface AgentLifecycle {
  /** `deprecated` when every capability the caller sees is deprecated; `preview` when every one is a preview. */
  status: 'active' | 'preview' | 'deprecated';
  deprecatedAt?: string;
  sunsetAt?: string;
  replacement?: string;
  capabilities: CapabilityLifecycle[];
}

export interface AiCatalogEntry {
  identifier: string;
  displayName: string;
  mediaType: string;
  url?: string;
  data?: AiCatalog;
  description?: string;
  tags?: string[];
  version?: string;
  updatedAt?: string;
  publisher?: AiCatalogPublisher;
  metadata?: Record<string, unknown>;
}

export interface AiCatalog {
  specVersion: string;
  host?: AiCatalogHost;
  entries: AiCatalogEntry[];
  metadata?: Record<string, unknown>;
}

/** One agent as the catalog reads it: its snapshot, its team, when it last changed. */
export interface CatalogAgent {
  snapshot: RegistrySnapshot;
  teamId: string;
  /** ISO 8601: when the agent's registry last changed. */
  updatedAt: string;
}

/** URN NSS characters (RFC 8141) we keep; anything else becomes "-" so the identifier stays a URN. */
const urnPart = (s: string) => s.replace(/[^A-Za-z0-9._~-]/g, '-');

/** `urn:air:{publisher}:{namespace}:{name}`: stable across revisions, hosts and catalogs. */
export function agentUrn(publisher: string, namespace: string, name: string): string {
  return `urn:air:${urnPart(publisher)}:${urnPart(namespace)}:${urnPart(name)}`;
}

/** Where the agent's public card and its extended card (HTTP+JSON `GET …/extendedAgentCard`) are. */
export function agentCardUrls(snapshot: RegistrySnapshot): { publicCard?: string; extendedCard?: string } {
  const interfaces = snapshot.agent.supportedInterfaces;
  const out: { publicCard?: string; extendedCard?: string } = {};
  const first = interfaces[0];
  if (first) {
    try {
      out.publicCard = new URL(AGENT_CARD_PATH, first.url).href;
    } catch {
      // An interface URL the registry accepted but URL cannot read: no link rather than a wrong one.
    }
  }
  const rest = interfaces.find((i) => i.protocolBinding === 'HTTP+JSON');
  if (rest) out.extendedCard = `${rest.url.replace(/\/+$/, '')}/extendedAgentCard`;
  return out;
}

/** The host part of the agent's first interface (how the fleet catalog groups agents by host). */
export function agentHost(snapshot: RegistrySnapshot): string {
  const first = snapshot.agent.supportedInterfaces[0];
  try {
    return first ? new URL(first.url).host : 'unknown';
  } catch {
    return 'unknown';
  }
}

const latest = (values: readonly (string | null | undefined)[]): string | undefined =>
  values
    .filter((v): v is string => typeof v === 'string')
    .sort()
    .at(-1);

function lifecycleOf(visible: readonly CapabilityManifest[]): AgentLifecycle {
  const ids = new Set(visible.map((m) => m.id));
  const capabilities: CapabilityLifecycle[] = [];
  for (const m of visible) {
    if (m.state !== 'preview' && m.state !== 'deprecated') continue;
    const c: CapabilityLifecycle = { id: m.id, status: m.state };
    if (m.state === 'deprecated') {
      if (m.deprecatedAt) c.deprecatedAt = m.deprecatedAt;
      if (m.sunsetAt) c.sunsetAt = m.sunsetAt;
      if (m.replacedBy && ids.has(m.replacedBy)) c.replacement = m.replacedBy;
    }
    capabilities.push(c);
  }
  const all = (state: string) => visible.length > 0 && visible.every((m) => m.state === state);
  if (all('preview')) return { status: 'preview', capabilities };
  if (!all('deprecated')) return { status: 'active', capabilities };
  const out: AgentLifecycle = { status: 'deprecated', capabilities };
  const deprecatedAt = latest(capabilities.map((c) => c.deprecatedAt));
  // The agent is gone only when its last capability is: the latest sunset, and only if all announce one.
  const sunsetAt = capabilities.every((c) => c.sunsetAt) ? latest(capabilities.map((c) => c.sunsetAt)) : undefined;
  const replacements = [...new Set(capabilities.map((c) => c.replacement).filter((r) => r !== undefined))];
  if (deprecatedAt) out.deprecatedAt = deprecatedAt;
  if (sunsetAt) out.sunsetAt = sunsetAt;
  if (replacements.length === 1) out.replacement = replacements[0];
  return out;
}

/**
 * The capabilities `caller` sees in the card it may read: the public card's for anonymous; for an
 * authenticated caller its extended card's when the agent serves one, else the public card's.
 */
function visibleTo(snapshot: RegistrySnapshot, caller: Caller): { visible: CapabilityManifest[]; extended: boolean } {
  const pub = manifestsForCaller(snapshot, null);
  if (caller === null || !declaresExtendedCard(snapshot)) return { visible: pub, extended: false };
  const ext = manifestsForCaller(snapshot, caller);
  const pubIds = new Set(pub.map((m) => m.id));
  return ext.some((m) => !pubIds.has(m.id)) ? { visible: ext, extended: true } : { visible: pub, extended: false };
}

/**
 * The agent's entry for this caller, or undefined when the caller sees none of its capabilities
 * (removed ones never, previews only for opted-in tenants, extended ones only when entitled).
 */
export function agentCatalogEntry(agent: CatalogAgent, caller: Caller, publisher: AiCatalogPublisher): AiCatalogEntry | undefined {
  const { snapshot } = agent;
  const { visible, extended } = visibleTo(snapshot, caller);
  if (visible.length === 0) return undefined;
  const urls = agentCardUrls(snapshot);
  if (!urls.publicCard) return undefined;
  const tags = [...new Set(visible.flatMap((m) => m.skill.tags))].sort();
  const metadata: Record<string, unknown> = { lifecycle: lifecycleOf(visible) };
  if (extended && urls.extendedCard) metadata.extendedCardUrl = urls.extendedCard;
  return {
    identifier: agentUrn(publisher.identifier, AGENT_NAMESPACE, snapshot.agentId),
    displayName: snapshot.agent.name,
    mediaType: A2A_AGENT_CARD_MEDIA_TYPE,
    url: urls.publicCard,
    description: snapshot.agent.description,
    tags,
    version: snapshot.agent.version,
    updatedAt: agent.updatedAt,
    publisher: { ...publisher },
    metadata,
  };
}

const byIdentifier = (a: AiCatalogEntry, b: AiCatalogEntry) => (a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0);

/** A flat catalog: one entry per agent the caller sees, ordered by identifier (so bytes are stable). */
export function agentsCatalog(
  host: AiCatalogHost,
  agents: readonly CatalogAgent[],
  caller: Caller,
  publisher: AiCatalogPublisher,
): AiCatalog {
  const entries = agents.map((a) => agentCatalogEntry(a, caller, publisher)).filter((e) => e !== undefined);
  return { specVersion: AI_CATALOG_SPEC_VERSION, host: { ...host }, entries: entries.sort(byIdentifier) };
}

/**
 * The control plane's catalog of its whole fleet: nested catalogs (inline, `data`) by host and by
 * team, each listing the agents the caller sees there. A host or team with none is left out: a
 * group holding only hidden agents must not reveal that it exists.
 */
export function fleetCatalog(
  host: AiCatalogHost,
  agents: readonly CatalogAgent[],
  caller: Caller,
  publisher: AiCatalogPublisher,
): AiCatalog {
  const seen = agents
    .map((agent) => ({ agent, entry: agentCatalogEntry(agent, caller, publisher) }))
    .filter((x): x is { agent: CatalogAgent; entry: AiCatalogEntry } => x.entry !== undefined);
  const group = (kind: 'host' | 'team', keyOf: (a: CatalogAgent) => string): AiCatalogEntry[] => {
    const groups = new Map<string, AiCatalogEntry[]>();
    for (const { agent, entry } of seen) {
      const key = keyOf(agent);
      groups.set(key, [...(groups.get(key) ?? []), entry]);
    }
    return [...groups.entries()].map(([key, entries]) => ({
      identifier: agentUrn(publisher.identifier, kind, key),
      displayName: kind === 'host' ? `Agents on ${key}` : `Agents of team ${key}`,
      mediaType: AI_CATALOG_MEDIA_TYPE,
      data: {
        specVersion: AI_CATALOG_SPEC_VERSION,
        host: { displayName: kind === 'host' ? key : host.displayName, ...(kind === 'host' ? { identifier: key } : {}) },
        entries: entries.sort(byIdentifier),
      },
      tags: [kind],
    }));
  };
  const entries = [...group('host', (a) => agentHost(a.snapshot)), ...group('team', (a) => a.teamId)].sort(byIdentifier);
  return { specVersion: AI_CATALOG_SPEC_VERSION, host: { ...host }, entries };
}
