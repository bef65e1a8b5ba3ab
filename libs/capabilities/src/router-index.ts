/** The router's index for a caller: only what the caller may reach, plus tombstones. */
import { entitlement } from './entitlement';
import { byId, entitlementContext, manifestsForCaller } from './select';
import { describe } from './skill-projection';
import type { Caller, CapabilityManifest, RegistrySnapshot } from './types';

export interface RouterEntry {
  id: string;
  handler: string;
  state: 'preview' | 'ga' | 'deprecated';
  /** The skill's modes, or the agent's defaults when the skill declares none. */
  inputModes: string[];
  outputModes: string[];
  /** What the classifier reads; the description is the card's (deprecation suffix included). */
  skill: { name: string; description: string; tags: string[]; examples: string[] };
  /** The manifest's routing-only hints, when it has any (never in a card). */
  routing?: { terms: string[]; negativeTerms: string[] };
}

/** A removed capability: the router fails naming the replacement instead of falling through. */
export interface Tombstone {
  id: string;
  /** Live replacement routable for this caller (followed through removed ones), else null. */
  replacedBy: string | null;
  deprecationReason: string | null;
}

export interface RouterIndex {
  agentId: string;
  revision: number;
  entries: RouterEntry[];
  tombstones: Tombstone[];
}

function liveReplacement(
  start: string | null | undefined,
  routable: ReadonlyMap<string, unknown>,
  all: ReadonlyMap<string, CapabilityManifest>,
): string | null {
  const seen = new Set<string>();
  let id = start ?? null;
  while (id !== null && !seen.has(id)) {
    if (routable.has(id)) return id;
    seen.add(id);
    const m = all.get(id);
    id = m && m.state === 'removed' ? (m.replacedBy ?? null) : null;
  }
  return null;
}

export function buildRouterIndex(snapshot: RegistrySnapshot, caller: Caller): RouterIndex {
  const agent = snapshot.agent;
  const selected = manifestsForCaller(snapshot, caller);
  const ids = new Set(selected.map((m) => m.id));
  const entries: RouterEntry[] = selected.map((m) => {
    const entry: RouterEntry = {
      id: m.id,
      handler: m.handler,
      state: m.state as RouterEntry['state'],
      inputModes: [...(m.skill.inputModes ?? agent.defaultInputModes)],
      outputModes: [...(m.skill.outputModes ?? agent.defaultOutputModes)],
      skill: { name: m.skill.name, description: describe(m, ids), tags: [...m.skill.tags], examples: [...(m.skill.examples ?? [])] },
    };
    if (m.routing) entry.routing = { terms: [...m.routing.terms], negativeTerms: [...m.routing.negativeTerms] };
    return entry;
  });
  // A tombstone only for what this caller could have used: it must not reveal other callers' ids.
  // A removed preview counts as a preview: only opted-in tenants' callers could have used it.
  const ctx = entitlementContext(snapshot);
  const routable = new Map(selected.map((m) => [m.id, m] as const));
  const all = new Map(snapshot.manifests.map((m) => [m.id, m] as const));
  const tombstones: Tombstone[] = snapshot.manifests
    .filter(
      (m) => m.state === 'removed' && entitlement({ ...m, state: m.removedFromPreview ? 'preview' : 'deprecated' }, caller, ctx).routable,
    )
    .sort(byId)
    .map((m) => ({ id: m.id, replacedBy: liveReplacement(m.replacedBy, routable, all), deprecationReason: m.deprecationReason ?? null }));
  return { agentId: snapshot.agentId, revision: snapshot.revision, entries, tombstones };
}

/** The tombstone for an id, if the caller could have used it. */
export function findTombstone(index: RouterIndex, id: string): Tombstone | undefined {
  return index.tombstones.find((t) => t.id === id);
}
