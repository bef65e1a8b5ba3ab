/**
 * Lifecycle rules for one manifest change: preview → ga → deprecated → removed, and
 * preview → removed; a removed id is never reused; a ga capability's meaning (handler, modes)
 * never changes under the same id (seed: "change the meaning of a skill and you have a new skill").
 * Paths are document paths (`$.replaced_by`), since people edit documents.
 */
import { changedFields, sameModes } from './manifest-diff';
import type { CapabilityManifest, CapabilityState, ValidationIssue } from './types';

const ALLOWED: Record<CapabilityState, readonly CapabilityState[]> = {
  preview: ['preview', 'ga', 'removed'],
  ga: ['ga', 'deprecated'],
  deprecated: ['deprecated', 'removed'],
  removed: ['removed'],
};

function replacementIssues(next: CapabilityManifest, registry: readonly CapabilityManifest[]): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  if (next.replacedBy) {
    const target = registry.find((m) => m.id === next.replacedBy);
    if (next.replacedBy === next.id) out.push({ path: '$.replaced_by', message: 'a capability cannot replace itself' });
    else if (!target) out.push({ path: '$.replaced_by', message: `replacement "${next.replacedBy}" does not exist` });
    else if (target.state === 'removed') out.push({ path: '$.replaced_by', message: `replacement "${next.replacedBy}" is removed` });
  } else if (next.state === 'deprecated' && !next.deprecationReason) {
    out.push({
      path: '$.replaced_by',
      message: 'deprecating needs replaced_by (an existing capability id) or a deprecation_reason saying there is no replacement',
    });
  }
  return out;
}

/**
 * Issues with changing `previous` (undefined = creating) into `next`, given the registry as it
 * is now (removed manifests included: they reserve their ids forever).
 */
export function checkManifestChange(
  previous: CapabilityManifest | undefined,
  next: CapabilityManifest,
  registry: readonly CapabilityManifest[],
): ValidationIssue[] {
  if (previous === undefined) {
    const existing = registry.find((m) => m.id === next.id);
    if (existing?.state === 'removed')
      return [{ path: '$.id', message: `id "${next.id}" belonged to a removed capability and is never reused: choose a new id` }];
    if (existing) return [{ path: '$.id', message: `capability "${next.id}" already exists` }];
    // Creating in state removed is allowed: it records a tombstone (an import of an export does).
    return next.state === 'deprecated' || next.state === 'removed' ? replacementIssues(next, registry) : [];
  }
  if (previous.id !== next.id)
    return [
      { path: '$.id', message: `the id of a capability never changes ("${previous.id}" → "${next.id}"): publish a new capability instead` },
    ];
  const fields = changedFields(previous, next);
  if (previous.state === 'removed') {
    return fields.length === 0
      ? []
      : [{ path: '$.state', message: `capability "${next.id}" is removed: it can no longer change (changed: ${fields.join(', ')})` }];
  }
  const out: ValidationIssue[] = [];
  if (!ALLOWED[previous.state].includes(next.state)) {
    const hint = previous.state === 'ga' && next.state === 'removed' ? ': deprecate it first' : '';
    out.push({
      path: '$.state',
      message: `transition ${previous.state} → ${next.state} is not allowed (allowed: preview → ga → deprecated → removed, preview → removed)${hint}`,
    });
  }
  if (previous.state === 'ga' || previous.state === 'deprecated') {
    const newId = 'a new meaning is a new skill: publish a new capability id and deprecate this one';
    if (previous.handler !== next.handler)
      out.push({ path: '$.handler', message: `the handler of a ${previous.state} capability cannot change; ${newId}` });
    if (!sameModes(previous.skill.inputModes, next.skill.inputModes))
      out.push({ path: '$.skill.inputModes', message: `the input modes of a ${previous.state} capability cannot change; ${newId}` });
    if (!sameModes(previous.skill.outputModes, next.skill.outputModes))
      out.push({ path: '$.skill.outputModes', message: `the output modes of a ${previous.state} capability cannot change; ${newId}` });
  }
  // A removed manifest's pointer is checked when it is set (on removal), not forever after.
  if (next.state === 'deprecated' || (next.state === 'removed' && fields.length > 0)) out.push(...replacementIssues(next, registry));
  return out;
}

/**
 * A removed manifest that was never deprecated went preview → removed (or was recorded as removed
 * directly): its tombstone is shown only to callers who could have used it as a preview (ADR 61).
 */
export function wasRemovedFromPreview(m: { state: CapabilityState; deprecatedAt: Date | null }): boolean {
  return m.state === 'removed' && m.deprecatedAt === null;
}

const DAY_MS = 86_400_000;

/**
 * The sunset date a change sets or moves must leave callers time to move: at least
 * `minNoticeDays` after `now`. Clearing it, or keeping it as it was (even once it has passed),
 * is always allowed. Pure: the caller passes `now`.
 */
export function sunsetIssues(
  previous: CapabilityManifest | undefined,
  next: CapabilityManifest,
  now: Date,
  minNoticeDays: number,
): ValidationIssue[] {
  const sunset = next.sunsetAt ?? null;
  if (sunset === null || sunset === (previous?.sunsetAt ?? null) || next.state === 'removed') return [];
  const earliest = new Date(now.getTime() + minNoticeDays * DAY_MS);
  if (new Date(sunset).getTime() < earliest.getTime()) {
    return [
      {
        path: '$.sunset_at',
        message: `a sunset date must give callers at least ${minNoticeDays} day(s) of notice: ${sunset} is before ${earliest.toISOString()}`,
      },
    ];
  }
  return [];
}
