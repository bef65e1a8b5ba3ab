/**
 * Which changes need a second admin (issue 32, ADR 0300, 0325). Pure: it reads the plan the write
 * pipeline already made (added, changed, deprecated, removed: the core's planApply model, or the one
 * manifest a single mutation writes) and names each change that widens exposure; and it says which
 * change of an agent's allow lists widens them. The one place that rule lives.
 */
import { canonicalJson, widenedAllowEntries, type CapabilityManifest, type Visibility } from '@cp/capabilities';

export const CHANGE_KINDS = ['public', 'access', 'upstream', 'undeprecate', 'remove', 'allowlist'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export const CHANGE_KIND_DESCRIPTIONS: Record<ChangeKind, string> = {
  public: 'a capability becomes public (created public, or its visibility widened to public)',
  access: 'an existing capability opens to more callers: visibility internal → extended, tenants added or "*", required scopes dropped',
  upstream: "a capability's upstream agent (ADR 0230) is set, changed or dropped",
  undeprecate: 'a deprecated capability back to preview or ga',
  remove: 'a capability removed',
  allowlist: "an agent's protocol.webhookAllow or protocol.upstreamAllow gains an entry, or an entry is broadened",
};

/** One change of a plan that the policy may gate. */
export interface GatedChange {
  kind: ChangeKind;
  /** The capability changed; `*` for a change of the agent's own settings (kind `allowlist`). */
  capabilityId: string;
  /** What changed, in words an approver reads (`tenants + acme, globex`). */
  detail: string;
}

/** One capability the change writes: before (undefined when new) and after. */
export interface WrittenCapability {
  before: CapabilityManifest | undefined;
  after: CapabilityManifest;
}

const RANK: Record<Visibility, number> = { internal: 0, extended: 1, public: 2 };

/** Every change of kinds `kinds` among the capabilities a plan writes, in plan order. */
export function gatedChanges(written: readonly WrittenCapability[], kinds: readonly ChangeKind[]): GatedChange[] {
  const wanted = new Set(kinds);
  return written.flatMap(({ before, after }) => classify(before, after).filter((c) => wanted.has(c.kind)));
}

/** Every kind one capability's change is, whatever the policy. */
export function classify(before: CapabilityManifest | undefined, after: CapabilityManifest): GatedChange[] {
  const id = after.id;
  const out: GatedChange[] = [];
  const add = (kind: ChangeKind, detail: string) => out.push({ kind, capabilityId: id, detail });
  if (after.state === 'removed') {
    if (before && before.state !== 'removed') add('remove', `${before.state} → removed`);
    return out;
  }
  if (after.visibility === 'public' && before?.visibility !== 'public')
    add('public', before ? `visibility ${before.visibility} → public` : 'created public');
  if (before) {
    if (RANK[after.visibility] > RANK[before.visibility] && after.visibility !== 'public')
      add('access', `visibility ${before.visibility} → ${after.visibility}`);
    const tenants = widenedTenants(before.tenants, after.tenants);
    if (tenants) add('access', `tenants ${tenants}`);
    const dropped = before.requiresScopes.filter((s) => !after.requiresScopes.includes(s));
    if (dropped.length) add('access', `no longer requires scope ${dropped.join(', ')}`);
    if (before.state === 'deprecated' && (after.state === 'ga' || after.state === 'preview'))
      add('undeprecate', `deprecated → ${after.state}`);
  }
  const was = before?.upstream ? canonicalJson(before.upstream) : null;
  const now = after.upstream ? canonicalJson(after.upstream) : null;
  if (was !== now && (before || now)) {
    add(
      'upstream',
      now === null ? `upstream ${before!.upstream!.url} dropped` : `upstream ${was === null ? 'set to' : '→'} ${after.upstream!.url}`,
    );
  }
  return out;
}

function widenedTenants(before: '*' | string[], after: '*' | string[]): string | undefined {
  if (before === '*') return undefined;
  if (after === '*') return `${before.join(', ') || 'none'} → "*" (every tenant)`;
  const added = after.filter((t) => !before.includes(t));
  return added.length ? `+ ${added.join(', ')}` : undefined;
}

/** The agent settings that list private hosts the node may reach (ADR 0162, 0211, 0230). */
export const ALLOW_LISTS = ['webhookAllow', 'upstreamAllow'] as const;
export type AllowListName = (typeof ALLOW_LISTS)[number];
export type AllowLists = Partial<Record<AllowListName, readonly string[] | undefined>>;

/** The capabilityId of a gated change of the agent's settings rather than of a capability. */
export const AGENT_SETTINGS = '*';

/** What widens an allow list is the capabilities core's rule (libs/capabilities, webhook-allow.ts). */
export { widenedAllowEntries };

/** Each allow list the settings change widens, as a gated change of kind `allowlist` (whatever the policy). */
export function classifyAllowLists(before: AllowLists, after: AllowLists): GatedChange[] {
  return ALLOW_LISTS.flatMap((list) => {
    const added = widenedAllowEntries(before[list] ?? [], after[list] ?? []);
    return added.length === 0
      ? []
      : [{ kind: 'allowlist' as const, capabilityId: AGENT_SETTINGS, detail: `protocol.${list} + ${added.join(', ')}` }];
  });
}
