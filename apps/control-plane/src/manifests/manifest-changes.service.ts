import { Injectable } from '@nestjs/common';
import {
  toManifestDocument,
  validateManifest,
  type CapabilityManifest,
  type RegistrySnapshot,
  type ValidationIssue,
} from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import { RegistryWriter } from '@cp/db';
import { InputValidationError, notFound } from '../common/errors';
import type { DeprecateInput, LifecycleInput, ManifestDocumentInput } from './dto/manifest.input';
import { ManifestAccess } from './manifest-access';
import { changeIssues, publicCardImpact, referenceIssues, registryIssues } from './manifest-checks';
import { ManifestError, ManifestErrorCode } from './manifests.errors';
import { ManifestsRepository, type ManifestRecord } from './manifests.repository';
import { ServabilityGate, stagedAudit, stagedSummary } from '../node-inventory/servability-gate';

type Build = (previous: CapabilityManifest | undefined, snapshot: RegistrySnapshot) => CapabilityManifest;

/**
 * Single-manifest changes: create, update, promote, deprecate, remove. Each validates the WHOLE
 * resulting registry with the core (lifecycle rule for this change, then every document and
 * cross-document rule, then references) and refuses a public-card leak; on any error nothing is
 * written. The write goes through RegistryWriter (revision + outbox + audit in one transaction).
 */
@Injectable()
export class ManifestChangesService {
  constructor(
    private readonly access: ManifestAccess,
    private readonly manifests: ManifestsRepository,
    private readonly writer: RegistryWriter,
    private readonly servability: ServabilityGate,
  ) {}

  create(principal: AdminPrincipal, input: ManifestDocumentInput) {
    const doc = parseDocument(input.manifest);
    return this.change(principal, input.agentId, doc.id, input.expectedRevision, 'create', () => doc, input.allowUnserved);
  }

  update(principal: AdminPrincipal, input: ManifestDocumentInput) {
    const doc = parseDocument(input.manifest);
    return this.change(
      principal,
      input.agentId,
      doc.id,
      input.expectedRevision,
      'update',
      (previous) => {
        if (!previous) throw notFound('manifest', `${input.agentId}/${doc.id}`);
        return doc;
      },
      input.allowUnserved,
    );
  }

  promote(principal: AdminPrincipal, input: LifecycleInput) {
    return this.change(
      principal,
      input.agentId,
      input.capabilityId,
      input.expectedRevision,
      'promote',
      (previous) => ({ ...existing(input, previous), state: 'ga' }),
      input.allowUnserved,
    );
  }

  deprecate(principal: AdminPrincipal, input: DeprecateInput) {
    return this.change(principal, input.agentId, input.capabilityId, input.expectedRevision, 'deprecate', (previous) => ({
      ...existing(input, previous),
      state: 'deprecated',
      replacedBy: input.replacedBy ?? null,
      deprecationReason: input.reason ?? null,
    }));
  }

  remove(principal: AdminPrincipal, input: LifecycleInput) {
    return this.change(principal, input.agentId, input.capabilityId, input.expectedRevision, 'remove', (previous) => ({
      ...existing(input, previous),
      state: 'removed',
    }));
  }

  private async change(
    principal: AdminPrincipal,
    agentId: string,
    capabilityId: string,
    expectedRevision: number,
    action: string,
    build: Build,
    allowUnserved: readonly string[] | null | undefined = [],
  ): Promise<{ manifest: ManifestRecord; revision: number }> {
    const snapshot = await this.access.registryForWrite(principal, agentId, expectedRevision);
    const previous = snapshot.manifests.find((m) => m.id === capabilityId);
    const next = build(previous, snapshot);
    const resulting = previous ? snapshot.manifests.map((m) => (m.id === next.id ? next : m)) : [...snapshot.manifests, next];
    const here = (id: string) => (id === next.id ? '$' : undefined);
    // A create is judged as a create even when the id exists (already exists / removed ids are never reused).
    const servable = await this.servability.check({
      snapshot,
      resulting,
      written: [next],
      allowUnserved: allowUnserved ?? [],
      pathOf: () => '$',
    });
    const issues = dedupe([
      ...changeIssues(action === 'create' ? undefined : previous, next, snapshot.manifests),
      ...registryIssues(resulting, here),
      ...(await referenceIssues(this.manifests, [next], () => '$')),
      ...servable.issues,
    ]);
    if (issues.length)
      throw new InputValidationError(
        issues,
        `manifest "${next.id}" cannot be ${action}d: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      );
    const { leaks } = publicCardImpact(snapshot, resulting);
    if (leaks.length)
      throw new ManifestError(
        ManifestErrorCode.PublicCardLeak,
        `the public card would show text of non-public skills (${leaks.map((l) => `${l.skillId}.${l.field}`).join(', ')})`,
        { leaks },
      );

    const { revision } = await this.writer.change(
      { agentId, expectedRevision, actor: principal.subject, summary: `${action} manifest ${next.id}${stagedSummary(servable.staged)}` },
      async (tx) => {
        await this.manifests.save(tx, agentId, next, previous);
        return {
          result: undefined,
          audit: [
            {
              action: `manifest.${action}`,
              targetType: 'manifest',
              targetId: `${agentId}/${next.id}`,
              before: previous && toManifestDocument(previous),
              after: toManifestDocument(next),
            },
            ...stagedAudit(agentId, servable.staged),
          ],
        };
      },
    );
    return { manifest: (await this.manifests.find(agentId, next.id))!, revision };
  }
}

function existing(input: { agentId: string; capabilityId: string }, previous: CapabilityManifest | undefined): CapabilityManifest {
  if (!previous) throw notFound('manifest', `${input.agentId}/${input.capabilityId}`);
  return previous;
}

/** The core's document validation; every problem with its path. */
export function parseDocument(doc: unknown): CapabilityManifest {
  const result = validateManifest(doc);
  if (!result.ok) throw new InputValidationError(result.errors);
  return result.manifest;
}

export function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}
