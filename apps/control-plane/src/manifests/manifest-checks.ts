import {
  addedLeaks,
  buildPublicCard,
  checkManifestChange,
  diffCards,
  findLeaks,
  hasBreakingChange,
  toManifestDocument,
  validateManifests,
  type CapabilityManifest,
  type RegistrySnapshot,
  type ValidationIssue,
} from '@cp/capabilities';
import type { ManifestsRepository } from './manifests.repository';

/**
 * Validation of a whole resulting registry, shared by single-manifest changes and apply: the
 * core's per-document and cross-document rules (validateManifests over every resulting
 * document), then the references only the database knows (teams, scopes, tenants).
 * Paths are prefixed with `prefix(index)` so they point into what the caller sent.
 */
export function registryIssues(resulting: readonly CapabilityManifest[], pathOf: (id: string) => string | undefined): ValidationIssue[] {
  const docs = resulting.map(toManifestDocument);
  const result = validateManifests(docs);
  if (result.ok) return [];
  return result.errors.map((issue) => {
    const match = /^\$\[(\d+)\](.*)$/.exec(issue.path);
    if (!match) return issue;
    const id = resulting[Number(match[1])].id;
    const at = pathOf(id);
    return { path: at === undefined ? `$.registry["${id}"]${match[2]}` : `${at}${match[2]}`, message: issue.message };
  });
}

export async function referenceIssues(
  repository: ManifestsRepository,
  manifests: readonly CapabilityManifest[],
  pathOf: (id: string) => string,
): Promise<ValidationIssue[]> {
  const missing = await repository.missingReferences({
    teams: [...new Set(manifests.map((m) => m.owner))],
    scopes: [...new Set(manifests.flatMap((m) => m.requiresScopes))],
    tenants: [...new Set(manifests.flatMap((m) => (m.tenants === '*' ? [] : m.tenants)))],
  });
  const issues: ValidationIssue[] = [];
  for (const m of manifests) {
    const at = pathOf(m.id);
    if (missing.teams.has(m.owner)) issues.push({ path: `${at}.owner`, message: `team "${m.owner}" does not exist` });
    m.requiresScopes.forEach(
      (s, i) => missing.scopes.has(s) && issues.push({ path: `${at}.requires_scopes[${i}]`, message: `scope "${s}" does not exist` }),
    );
    if (m.tenants !== '*')
      m.tenants.forEach(
        (t, i) => missing.tenants.has(t) && issues.push({ path: `${at}.tenants[${i}]`, message: `tenant "${t}" does not exist` }),
      );
  }
  return issues;
}

/** Lifecycle rules for one change, with paths under `at`. */
export function changeIssues(
  previous: CapabilityManifest | undefined,
  next: CapabilityManifest,
  registry: readonly CapabilityManifest[],
  at = '$',
): ValidationIssue[] {
  return checkManifestChange(previous, next, registry).map((issue) => ({ path: issue.path.replace(/^\$/, at), message: issue.message }));
}

/** What the public card does between two registries: its diff, whether it breaks, and leaks after. */
export function publicCardImpact(snapshot: RegistrySnapshot, resulting: CapabilityManifest[]) {
  const before = buildPublicCard(snapshot);
  const after = buildPublicCard({ ...snapshot, manifests: resulting });
  const diff = diffCards(before, after);
  const context = { tenants: snapshot.previewTenants };
  // A change is refused for the leaks it adds, not for those the registry already had (ADR 0335).
  const leaks = addedLeaks(findLeaks(before, snapshot.manifests, context), findLeaks(after, resulting, context));
  return { diff, breaking: hasBreakingChange(diff), leaks };
}
