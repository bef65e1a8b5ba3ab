/** Manifest document validation: every problem with its JSON path, never only the first. */
import type { z } from 'zod';
import { jsonPath, underIndex } from './json-path';
import { fromManifestDocument, type ManifestDocument } from './manifest-document';
import { manifestRuleIssues } from './manifest-rules';
import { manifestDocumentSchema } from './manifest-schema';
import type { CapabilityManifest, ValidationIssue } from './types';

export type ManifestValidation = { ok: true; manifest: CapabilityManifest } | { ok: false; errors: ValidationIssue[] };
export type ManifestsValidation = { ok: true; manifests: CapabilityManifest[] } | { ok: false; errors: ValidationIssue[] };

function valueAt(doc: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = doc;
  for (const seg of path) v = typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[seg] : undefined;
  return v;
}

function zodIssues(doc: unknown, error: z.ZodError): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: jsonPath([...issue.path, key]), message: 'unknown field' });
      continue;
    }
    const missing = issue.path.length > 0 && valueAt(doc, issue.path) === undefined;
    out.push({ path: jsonPath(issue.path), message: missing ? 'is required' : issue.message });
  }
  return out;
}

const byPath = (a: ValidationIssue, b: ValidationIssue) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

export function validateManifest(doc: unknown): ManifestValidation {
  const parsed = manifestDocumentSchema.safeParse(doc);
  const errors = [...(parsed.success ? [] : zodIssues(doc, parsed.error)), ...manifestRuleIssues(doc)];
  if (errors.length > 0 || !parsed.success) return { ok: false, errors: errors.sort(byPath) };
  return { ok: true, manifest: fromManifestDocument(doc as ManifestDocument) };
}

/**
 * A set of documents (a file tree, an import): each document, then cross-document rules: unique
 * ids, and replaced_by naming another id of the set. A deprecated capability's replacement must be
 * live (not removed); a removed one may point at a since-removed replacement (history).
 */
export function validateManifests(docs: unknown[]): ManifestsValidation {
  const errors: ValidationIssue[] = [];
  const manifests: (CapabilityManifest | undefined)[] = docs.map((doc, i) => {
    const r = validateManifest(doc);
    if (!r.ok) errors.push(...r.errors.map((e) => ({ path: underIndex(e.path, i), message: e.message })));
    return r.ok ? r.manifest : undefined;
  });
  const firstIndex = new Map<string, number>();
  const byId = new Map<string, CapabilityManifest>();
  docs.forEach((doc, i) => {
    const id = (doc as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    const first = firstIndex.get(id);
    if (first !== undefined) errors.push({ path: `$[${i}].id`, message: `duplicate capability id "${id}" (first at $[${first}])` });
    else firstIndex.set(id, i);
    const m = manifests[i];
    if (m && !byId.has(id)) byId.set(id, m);
  });
  manifests.forEach((m, i) => {
    if (!m?.replacedBy || m.replacedBy === m.id) return;
    const target = byId.get(m.replacedBy);
    if (!target) errors.push({ path: `$[${i}].replaced_by`, message: `replacement "${m.replacedBy}" is not a capability of this set` });
    else if (target.state === 'removed' && m.state !== 'removed') {
      errors.push({ path: `$[${i}].replaced_by`, message: `replacement "${m.replacedBy}" is removed` });
    }
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, manifests: manifests as CapabilityManifest[] };
}
