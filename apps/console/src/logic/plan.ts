import type { ApplyManifestsMutation } from '../gql/graphql';

export type Plan = ApplyManifestsMutation['applyManifests'];

export interface PlanRow {
  kind: 'added' | 'removed' | 'deprecated' | 'changed' | 'unchanged';
  capabilityId: string;
  detail: string;
}

/** The plan's capabilities, one row each, changes first (what the reviewer has to read), unchanged last. */
export function planRows(plan: Plan): PlanRow[] {
  const rows: PlanRow[] = [
    ...plan.added.map((id) => ({ kind: 'added' as const, capabilityId: id, detail: 'new capability' })),
    ...plan.removed.map((id) => ({ kind: 'removed' as const, capabilityId: id, detail: 'removed from the registry' })),
    ...plan.deprecated.map((id) => ({ kind: 'deprecated' as const, capabilityId: id, detail: 'deprecated' })),
    ...plan.changed.map((c) => ({ kind: 'changed' as const, capabilityId: c.id, detail: c.fields.join(', ') })),
    ...plan.unchanged.map((id) => ({ kind: 'unchanged' as const, capabilityId: id, detail: '' })),
  ];
  return rows;
}

export interface PlanFieldRow {
  capabilityId: string;
  field: string;
  before: string;
  after: string;
}

/** How a field's value reads in the side-by-side view: text as is, anything else as JSON, unset as such. */
export function formatFieldValue(value: unknown): string {
  if (value === null || value === undefined) return '(not set)';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** Each changed field of each changed capability, with its old and new value (side by side). */
export function planFieldRows(plan: Plan): PlanFieldRow[] {
  return plan.changed.flatMap((c) =>
    c.values.map((v) => ({ capabilityId: c.id, field: v.field, before: formatFieldValue(v.before), after: formatFieldValue(v.after) })),
  );
}

/** What must stop the reviewer: breaking public-card changes and leaks of non-public text. */
export function planWarnings(plan: Plan): string[] {
  const warnings: string[] = [];
  const breaking = plan.publicCardDiff.filter((c) => c.breaking);
  if (breaking.length) warnings.push(`${breaking.length} breaking change(s) to the public card`);
  else if (plan.breaking) warnings.push('this change is breaking');
  if (plan.leaks.length) warnings.push(`${plan.leaks.length} leak(s): the public card would show text of non-public skills`);
  return warnings;
}

/** A plan that changes nothing is not worth applying. */
export function planIsEmpty(plan: Plan): boolean {
  return !plan.added.length && !plan.removed.length && !plan.deprecated.length && !plan.changed.length && !plan.publicCardDiff.length;
}
