import { Injectable } from '@nestjs/common';
import { changedFields, sunsetAtSchema, validateManifest, type CapabilityManifest, type RegistrySnapshot } from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import type { AuditEntry, RegistryTx } from '@cp/db';
import { notFound, validateInput } from '../common/errors';
import { ApprovalGate } from '../change-requests/approval-gate.service';
import { ChangeRequestError, ChangeRequestErrorCode } from '../change-requests/change-requests.errors';
import type { DeprecateInput, LifecycleInput, ManifestDocumentInput, SetSunsetInput } from './dto/manifest.input';
import { changeIssues } from './manifest-checks';
import { ManifestWritePipeline, refusalError, type ManifestDraft } from './manifest-write-pipeline';
import { ManifestsRepository, type ManifestRecord } from './manifests.repository';

type Action = 'create' | 'update' | 'promote' | 'deprecate' | 'remove' | 'set the sunset of';

/** Writes made in a registry change's transaction beside its manifests; what they return joins its audit. */
export type AlsoInTransaction = (tx: RegistryTx, revision: number) => Promise<AuditEntry[]>;

interface SingleChange {
  agentId: string;
  expectedRevision: number;
  allowUnserved?: readonly string[] | null;
  action: Action;
  /** The manifest before (undefined when there is none) and after the change, from the snapshot. */
  target(snapshot: RegistrySnapshot): { previous: CapabilityManifest | undefined; next: CapabilityManifest };
}

/**
 * Single-manifest changes: create, update, promote, deprecate, remove. Each is a draft (the
 * lifecycle rule for this one change) handed to the ManifestWritePipeline, which every manifest
 * change goes through: access, revision, whole-registry validation, servability, leak guard, write.
 */
@Injectable()
export class ManifestChangesService {
  constructor(
    private readonly pipeline: ManifestWritePipeline,
    private readonly manifests: ManifestsRepository,
    private readonly gate: ApprovalGate,
  ) {}

  create(principal: AdminPrincipal, input: ManifestDocumentInput) {
    return this.document(principal, input, 'create');
  }

  /**
   * `also`: more writes in the registry change's own transaction (after the manifest's), rolled
   * back with it when either fails; not called when the update writes nothing.
   */
  update(principal: AdminPrincipal, input: ManifestDocumentInput, also?: AlsoInTransaction) {
    return this.document(principal, input, 'update', also);
  }

  promote(principal: AdminPrincipal, input: LifecycleInput) {
    return this.lifecycle(principal, input, 'promote', (previous) => ({ ...previous, state: 'ga' }));
  }

  deprecate(principal: AdminPrincipal, input: DeprecateInput) {
    const sunsetAt = sunsetOf(input.sunsetAt);
    return this.lifecycle(principal, input, 'deprecate', (previous) => ({
      ...previous,
      state: 'deprecated',
      replacedBy: input.replacedBy ?? null,
      deprecationReason: input.reason ?? null,
      ...(sunsetAt === undefined ? {} : { sunsetAt }),
    }));
  }

  /** Announces, moves or withdraws (null) the removal date of a deprecated capability. */
  setSunset(principal: AdminPrincipal, input: SetSunsetInput) {
    const sunsetAt = sunsetOf(input.sunsetAt) ?? null;
    return this.lifecycle(principal, input, 'set the sunset of', (previous) => ({ ...previous, sunsetAt }));
  }

  remove(principal: AdminPrincipal, input: LifecycleInput) {
    return this.lifecycle(principal, input, 'remove', (previous) => ({ ...previous, state: 'removed' }));
  }

  /** create / update: the document is parsed after access and revision are checked, like every draft. */
  private document(principal: AdminPrincipal, input: ManifestDocumentInput, action: 'create' | 'update', also?: AlsoInTransaction) {
    return this.change(
      principal,
      {
        ...changeOf(input),
        action,
        target: (snapshot) => {
          const parsed = validateManifest(input.manifest);
          if (!parsed.ok) throw refusalError(`manifest cannot be ${action}d`, parsed.errors);
          const next = parsed.manifest;
          const previous = snapshot.manifests.find((m) => m.id === next.id);
          if (action === 'update' && !previous) throw notFound('manifest', `${input.agentId}/${next.id}`);
          return { previous, next };
        },
      },
      also,
    );
  }

  private lifecycle(
    principal: AdminPrincipal,
    input: LifecycleInput,
    action: Action,
    build: (previous: CapabilityManifest) => CapabilityManifest,
  ) {
    return this.change(principal, {
      ...changeOf(input),
      action,
      target: (snapshot) => {
        const previous = snapshot.manifests.find((m) => m.id === input.capabilityId);
        if (!previous) throw notFound('manifest', `${input.agentId}/${input.capabilityId}`);
        return { previous, next: build(previous) };
      },
    });
  }

  private async change(
    principal: AdminPrincipal,
    change: SingleChange,
    also?: AlsoInTransaction,
  ): Promise<{ manifest: ManifestRecord; revision: number }> {
    const prepared = await this.pipeline.prepare(principal, {
      agentId: change.agentId,
      expectedRevision: change.expectedRevision,
      allowUnserved: change.allowUnserved,
      draft: (snapshot) => draftOf(change, snapshot),
    });
    const id = prepared.draft.id;
    const before = prepared.snapshot.manifests.find((m) => m.id === id);
    const gated = await this.gate.gated(prepared.writes.map((after) => ({ before, after })));
    if (gated.length > 0) {
      // A single mutation cannot hold a plan for a second admin: the change goes through applyManifests (ADR 0300).
      throw new ChangeRequestError(
        ChangeRequestErrorCode.ApprovalRequired,
        `${change.action} manifest "${id}" needs a second admin (${gated.map((c) => `${c.kind}: ${c.detail}`).join('; ')}): apply the agent's manifests with applyManifests or cpctl apply, which files a change request`,
        { changes: gated },
      );
    }
    const revision = await this.pipeline.commit(principal, prepared, change.expectedRevision, `${change.action} manifest ${id}`, also);
    return { manifest: (await this.manifests.find(change.agentId, id))!, revision };
  }
}

function draftOf(change: SingleChange, snapshot: RegistrySnapshot): ManifestDraft & { id: string } {
  const { previous, next } = change.target(snapshot);
  const resulting = previous ? snapshot.manifests.map((m) => (m.id === next.id ? next : m)) : [...snapshot.manifests, next];
  // A create is judged as a create even when the id exists (already exists / removed ids are never reused).
  const judged = change.action === 'create' ? undefined : previous;
  const unchanged = judged !== undefined && changedFields(judged, next).length === 0;
  return {
    id: next.id,
    writes: unchanged ? [] : [next],
    resulting,
    sent: [next],
    issues: changeIssues(judged, next, snapshot.manifests),
    refusal: `manifest "${next.id}" cannot be ${change.action}d`,
    pathOf: (id) => (id === next.id ? '$' : undefined),
  };
}

/** A sunset date from a mutation's argument, validated like the document's `sunset_at`, as UTC ISO. */
function sunsetOf(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const valid = validateInput(sunsetAtSchema, value, '$.sunsetAt');
  return new Date(/^\d{4}-\d{2}-\d{2}$/.test(valid) ? `${valid}T00:00:00Z` : valid).toISOString();
}

/** What every single-manifest mutation's input says about the change as a whole. */
function changeOf(input: { agentId: string; expectedRevision: number; allowUnserved?: string[] | null }) {
  return { agentId: input.agentId, expectedRevision: input.expectedRevision, allowUnserved: input.allowUnserved };
}
