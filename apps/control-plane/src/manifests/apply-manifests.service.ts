import { Injectable } from '@nestjs/common';
import { fieldValue, planApply, validateManifests, type CapabilityManifest, type RegistrySnapshot } from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import type { AuditEntry, RegistryTx } from '@cp/db';
import { InputValidationError, validateInput } from '../common/errors';
import { ApprovalGate, reasonSchema, type Submission } from '../change-requests/approval-gate.service';
import { toChangeRequestModel } from '../change-requests/change-request.mapper';
import type { ApplyManifestsInput } from './dto/manifest.input';
import type { ApplyPlanModel } from './dto/manifest.model';
import { PlanImpactService } from '../deprecation/plan-impact.service';
import { leakError, ManifestWritePipeline, refusalError, type ManifestDraft, type PreparedManifestWrite } from './manifest-write-pipeline';

const REFUSAL = 'manifests cannot be applied';

/**
 * Declarative apply (GitOps): the desired WHOLE set of an agent's manifests → the core's plan, the
 * public card diff, breaking flag and leaks. Both a dry run and an apply take the
 * ManifestWritePipeline's steps; a dry run stops before the leak guard and the write, an apply
 * writes the plan in one registry change, or nothing when anything is wrong. A plan with changes the
 * approval policy gates (ADR 0300) is held as a change request instead, unless a platform admin
 * breaks the glass with a reason; an approval applies the held documents at their base revision.
 */
@Injectable()
export class ApplyManifestsService {
  constructor(
    private readonly pipeline: ManifestWritePipeline,
    private readonly planImpact: PlanImpactService,
    private readonly gate: ApprovalGate,
  ) {}

  async apply(principal: AdminPrincipal, input: ApplyManifestsInput): Promise<ApplyPlanModel> {
    if (!input.dryRun && (input.expectedRevision === null || input.expectedRevision === undefined)) {
      throw new InputValidationError([{ path: '$.expectedRevision', message: 'is required to apply (dryRun: false)' }]);
    }
    const reason =
      input.breakGlassReason === null || input.breakGlassReason === undefined
        ? null
        : validateInput(reasonSchema, input.breakGlassReason, '$.breakGlassReason');
    const prepared = await this.pipeline.prepare(principal, {
      agentId: input.agentId,
      expectedRevision: input.expectedRevision,
      allowUnserved: input.allowUnserved,
      draft: (snapshot) => draftOf(snapshot, input.manifests),
    });
    const { added, changed, deprecated, removed, unchanged } = prepared.draft.plan;
    const { impact } = prepared;
    const result: ApplyPlanModel = {
      dryRun: input.dryRun,
      applied: false,
      revision: prepared.snapshot.revision,
      added: added.map((m) => m.id),
      changed: changed.map((c) => ({ id: c.id, fields: c.fields, values: c.fields.map((field) => valuesOf(c, field)) })),
      deprecated: deprecated.map((m) => m.id),
      removed: removed.map((m) => m.id),
      unchanged,
      publicCardDiff: impact.diff.map((c) => ({ ...c, skillId: c.skillId ?? null, extensionUri: c.extensionUri ?? null })),
      breaking: impact.breaking,
      leaks: impact.leaks,
      impact: await this.planImpact.forPlan(input.agentId, prepared.snapshot.manifests, prepared.draft.resulting, input.impactDays),
      approvalRequired: await this.gate.gated(written(prepared)),
      changeRequest: null,
      breakGlass: false,
    };
    if (input.dryRun || prepared.writes.length === 0) return result;
    if (result.approvalRequired.length === 0) {
      const revision = await this.pipeline.commit(principal, prepared, input.expectedRevision!, summary(result));
      return { ...result, applied: true, revision };
    }
    // A plan that leaks is refused now, not held for an approval that could never apply it.
    if (prepared.impact.leaks.length) throw leakError(prepared.impact.leaks);
    const submission: Submission = {
      agentId: input.agentId,
      baseRevision: prepared.snapshot.revision,
      documents: input.manifests,
      allowUnserved: input.allowUnserved ?? [],
      changes: result.approvalRequired,
      plan: planOf(result),
    };
    if (reason === null) {
      const request = await this.gate.submit(principal, submission);
      return { ...result, changeRequest: toChangeRequestModel(request, { canApprove: false, cannotApproveReason: 'you submitted it' }) };
    }
    const record = this.gate.breakGlassRecord(principal, submission, this.gate.breakGlassReason(principal, reason));
    const revision = await this.pipeline.commit(
      principal,
      prepared,
      input.expectedRevision!,
      `${summary(result)} (break-glass)`,
      record.write,
    );
    const row = await record.announce();
    return {
      ...result,
      applied: true,
      revision,
      breakGlass: true,
      changeRequest: row ? toChangeRequestModel(row, { canApprove: false, cannotApproveReason: 'it is applied' }) : null,
    };
  }

  /**
   * Applies a change request's documents exactly at its base revision, as `principal` (the approver):
   * the same pipeline, so access, validation, servability and the leak guard are judged again;
   * a registry that moved answers STALE_REVISION and writes nothing. `markApplied` runs in the
   * write's transaction (the request becomes applied with the change, or neither happens).
   */
  async applyApproved(
    principal: AdminPrincipal,
    request: { id: string; agentId: string; baseRevision: number; documents: unknown; allowUnserved: string[]; author: string },
    markApplied: (tx: RegistryTx, revision: number) => Promise<AuditEntry[]>,
  ): Promise<number> {
    const prepared = await this.pipeline.prepare(principal, {
      agentId: request.agentId,
      expectedRevision: request.baseRevision,
      allowUnserved: request.allowUnserved,
      draft: (snapshot) => draftOf(snapshot, request.documents as unknown[]),
    });
    const { added, changed, deprecated, removed } = prepared.draft.plan;
    const what = `apply: +${added.length} ~${changed.length} deprecated ${deprecated.length} removed ${removed.length}`;
    return this.pipeline.commit(
      principal,
      prepared,
      request.baseRevision,
      `${what} (change request ${request.id} by ${request.author}, approved by ${principal.subject})`,
      markApplied,
    );
  }
}

/** A changed field's old and new value, from the plan's own before and after (unset is null). */
const valuesOf = (c: { before: CapabilityManifest; after: CapabilityManifest }, field: string) => ({
  field,
  before: fieldValue(c.before, field) ?? null,
  after: fieldValue(c.after, field) ?? null,
});

/** What the plan writes, each with the capability before it (the approval policy reads this). */
function written(prepared: PreparedManifestWrite) {
  const before = new Map(prepared.snapshot.manifests.map((m) => [m.id, m] as const));
  return prepared.writes.map((after) => ({ before: before.get(after.id), after }));
}

const planOf = (p: ApplyPlanModel) => ({
  added: p.added,
  changed: p.changed.map((c) => `${c.id} (${c.fields.join(', ')})`),
  deprecated: p.deprecated,
  removed: p.removed,
});

type ApplyDraft = ManifestDraft & { plan: ReturnType<typeof planApply> };

function draftOf(snapshot: RegistrySnapshot, documents: unknown[]): ApplyDraft {
  const validated = validateManifests(documents);
  if (!validated.ok) throw refusalError(REFUSAL, validated.errors);
  const desired = validated.manifests;
  const plan = planApply(snapshot.manifests, desired);
  const writes: CapabilityManifest[] = [...plan.added, ...plan.changed.map((c) => c.after), ...plan.deprecated, ...plan.removed];
  const resulting = new Map(snapshot.manifests.map((m) => [m.id, m] as const));
  for (const m of writes) resulting.set(m.id, m);
  const index = new Map(desired.map((m, i) => [m.id, i] as const));
  return {
    plan,
    writes,
    resulting: [...resulting.values()],
    sent: desired,
    issues: plan.errors,
    refusal: REFUSAL,
    pathOf: (id) => (index.has(id) ? `$[${index.get(id)}]` : undefined),
  };
}

const summary = (p: ApplyPlanModel) =>
  `apply: +${p.added.length} ~${p.changed.length} deprecated ${p.deprecated.length} removed ${p.removed.length}`;
