import { Injectable } from '@nestjs/common';
import { planApply, validateManifests, type CapabilityManifest, type RegistrySnapshot } from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import { InputValidationError } from '../common/errors';
import type { ApplyManifestsInput } from './dto/manifest.input';
import type { ApplyPlanModel } from './dto/manifest.model';
import { PlanImpactService } from '../deprecation/plan-impact.service';
import { ManifestWritePipeline, refusalError, type ManifestDraft } from './manifest-write-pipeline';

const REFUSAL = 'manifests cannot be applied';

/**
 * Declarative apply (GitOps): the desired WHOLE set of an agent's manifests → the core's plan, the
 * public card diff, breaking flag and leaks. Both a dry run and an apply take the
 * ManifestWritePipeline's steps; a dry run stops before the leak guard and the write, an apply
 * writes the plan in one registry change, or nothing when anything is wrong.
 */
@Injectable()
export class ApplyManifestsService {
  constructor(
    private readonly pipeline: ManifestWritePipeline,
    private readonly planImpact: PlanImpactService,
  ) {}

  async apply(principal: AdminPrincipal, input: ApplyManifestsInput): Promise<ApplyPlanModel> {
    if (!input.dryRun && (input.expectedRevision === null || input.expectedRevision === undefined)) {
      throw new InputValidationError([{ path: '$.expectedRevision', message: 'is required to apply (dryRun: false)' }]);
    }
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
      changed: changed.map((c) => ({ id: c.id, fields: c.fields })),
      deprecated: deprecated.map((m) => m.id),
      removed: removed.map((m) => m.id),
      unchanged,
      publicCardDiff: impact.diff.map((c) => ({ ...c, skillId: c.skillId ?? null, extensionUri: c.extensionUri ?? null })),
      breaking: impact.breaking,
      leaks: impact.leaks,
      impact: await this.planImpact.forPlan(input.agentId, prepared.snapshot.manifests, prepared.draft.resulting, input.impactDays),
    };
    if (input.dryRun || prepared.writes.length === 0) return result;
    const revision = await this.pipeline.commit(principal, prepared, input.expectedRevision!, summary(result));
    return { ...result, applied: true, revision };
  }
}

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
