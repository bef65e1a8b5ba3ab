/**
 * Declarative apply of a whole manifest set (GitOps-style): compares what is stored with what is
 * desired and says what to write, or every reason it cannot be applied. An id present now but
 * absent from `desired` means "remove", allowed only from deprecated or preview. Removed manifests
 * stay removed whether or not `desired` repeats them, and are not reported.
 * When `errors` is non-empty the plan must not be applied (the lists are still filled for display).
 */
import { checkManifestChange } from './lifecycle';
import { changedFields } from './manifest-diff';
import { underIndex } from './json-path';
import type { CapabilityManifest, ValidationIssue } from './types';

export interface ManifestChange {
  id: string;
  before: CapabilityManifest;
  after: CapabilityManifest;
  /** Domain field names: `handler`, `skill.description`, … */
  fields: string[];
}

export interface ApplyPlan {
  /** New manifests to store. */
  added: CapabilityManifest[];
  /** Edits that keep the state (or preview → ga). */
  changed: ManifestChange[];
  /** Manifests that become deprecated (the manifest to store). */
  deprecated: CapabilityManifest[];
  /** Manifests that become removed (the manifest to store, state 'removed'). */
  removed: CapabilityManifest[];
  unchanged: string[];
  errors: ValidationIssue[];
}

export function planApply(current: readonly CapabilityManifest[], desired: readonly CapabilityManifest[]): ApplyPlan {
  const plan: ApplyPlan = { added: [], changed: [], deprecated: [], removed: [], unchanged: [], errors: [] };
  const now = new Map(current.map((m) => [m.id, m] as const));
  const firstIndex = new Map<string, number>();
  desired.forEach((m, i) => {
    const first = firstIndex.get(m.id);
    if (first !== undefined) plan.errors.push({ path: `$[${i}].id`, message: `duplicate capability id "${m.id}" (first at $[${first}])` });
    else firstIndex.set(m.id, i);
  });
  // Absent ids become removed manifests; replacements are checked against this resulting registry.
  const absent = current.filter((m) => m.state !== 'removed' && !firstIndex.has(m.id));
  const resulting = new Map<string, CapabilityManifest>(current.map((m) => [m.id, m] as const));
  for (const m of desired) if (!now.has(m.id) || now.get(m.id)!.state !== 'removed') resulting.set(m.id, m);
  for (const m of absent) resulting.set(m.id, { ...m, state: 'removed' });
  const registry = [...resulting.values()];

  desired.forEach((next, i) => {
    if (firstIndex.get(next.id) !== i) return;
    const before = now.get(next.id);
    const issues = checkManifestChange(before, next, before ? registry : registry.filter((m) => m !== next));
    plan.errors.push(...issues.map((e) => ({ path: underIndex(e.path, i), message: `${next.id}: ${e.message}` })));
    if (!before) return void plan.added.push(next);
    if (before.state === 'removed') return;
    const fields = changedFields(before, next);
    if (fields.length === 0) plan.unchanged.push(next.id);
    else if (next.state === 'removed') plan.removed.push(next);
    else if (next.state === 'deprecated' && before.state !== 'deprecated') plan.deprecated.push(next);
    else plan.changed.push({ id: next.id, before, after: next, fields });
  });
  for (const m of absent) {
    if (m.state === 'deprecated' || m.state === 'preview') plan.removed.push({ ...m, state: 'removed' });
    else
      plan.errors.push({
        path: '$',
        message: `${m.id}: a ${m.state} capability cannot be removed by omitting it: deprecate it first (state "deprecated" with replaced_by or deprecation_reason)`,
      });
  }
  return plan;
}
