import { Injectable } from '@nestjs/common';
import { planApply, toManifestDocument, validateManifests, type CapabilityManifest } from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import { RegistryWriter, type AuditEntry } from '@cp/db';
import { InputValidationError } from '../common/errors';
import type { ApplyManifestsInput } from './dto/manifest.input';
import type { ApplyPlanModel } from './dto/manifest.model';
import { ManifestAccess } from './manifest-access';
import { dedupe } from './manifest-changes.service';
import { publicCardImpact, referenceIssues, registryIssues } from './manifest-checks';
import { ManifestError, ManifestErrorCode } from './manifests.errors';
import { ManifestsRepository } from './manifests.repository';
import { ServabilityGate, stagedAudit, stagedSummary } from '../node-inventory/servability-gate';

/**
 * Declarative apply (GitOps): the desired WHOLE set of an agent's manifests → the core's plan, the
 * public card diff, breaking flag and leaks. A dry run writes nothing; an apply writes the plan in
 * one registry change, or nothing when anything is wrong.
 */
@Injectable()
export class ApplyManifestsService {
  constructor(
    private readonly access: ManifestAccess,
    private readonly manifests: ManifestsRepository,
    private readonly writer: RegistryWriter,
    private readonly servability: ServabilityGate,
  ) {}

  async apply(principal: AdminPrincipal, input: ApplyManifestsInput): Promise<ApplyPlanModel> {
    if (!input.dryRun && (input.expectedRevision === null || input.expectedRevision === undefined)) {
      throw new InputValidationError([{ path: '$.expectedRevision', message: 'is required to apply (dryRun: false)' }]);
    }
    const snapshot = await this.access.registryForWrite(principal, input.agentId, input.expectedRevision);
    const validated = validateManifests(input.manifests);
    if (!validated.ok) throw new InputValidationError(validated.errors);
    const desired = validated.manifests;

    const plan = planApply(snapshot.manifests, desired);
    const resulting = new Map(snapshot.manifests.map((m) => [m.id, m] as const));
    for (const m of [...plan.added, ...plan.changed.map((c) => c.after), ...plan.deprecated, ...plan.removed]) resulting.set(m.id, m);
    const index = new Map(desired.map((m, i) => [m.id, i] as const));
    const pathOf = (id: string) => (index.has(id) ? `$[${index.get(id)}]` : undefined);
    const writes = [...plan.added, ...plan.changed.map((c) => c.after), ...plan.deprecated, ...plan.removed];
    const allowUnserved = input.allowUnserved ?? [];
    const servable = await this.servability.check({
      snapshot,
      resulting: [...resulting.values()],
      written: writes,
      allowUnserved,
      pathOf: (id) => pathOf(id) ?? '$',
    });
    const issues = dedupe([
      ...plan.errors,
      ...registryIssues([...resulting.values()], pathOf),
      ...(await referenceIssues(this.manifests, desired, (id) => pathOf(id) ?? '$')),
      ...servable.issues,
    ]);
    if (issues.length) throw new InputValidationError(issues);

    const impact = publicCardImpact(snapshot, [...resulting.values()]);
    const result: ApplyPlanModel = {
      dryRun: input.dryRun,
      applied: false,
      revision: snapshot.revision,
      added: plan.added.map((m) => m.id),
      changed: plan.changed.map((c) => ({ id: c.id, fields: c.fields })),
      deprecated: plan.deprecated.map((m) => m.id),
      removed: plan.removed.map((m) => m.id),
      unchanged: plan.unchanged,
      publicCardDiff: impact.diff.map((c) => ({ ...c, skillId: c.skillId ?? null, extensionUri: c.extensionUri ?? null })),
      breaking: impact.breaking,
      leaks: impact.leaks,
    };
    if (input.dryRun || writes.length === 0) return result;
    if (impact.leaks.length) {
      throw new ManifestError(
        ManifestErrorCode.PublicCardLeak,
        `the public card would show text of non-public skills (${impact.leaks.map((l) => `${l.skillId}.${l.field}`).join(', ')})`,
        {
          leaks: impact.leaks,
        },
      );
    }

    const before = new Map(snapshot.manifests.map((m) => [m.id, m] as const));
    const { revision } = await this.writer.change(
      {
        agentId: input.agentId,
        expectedRevision: input.expectedRevision!,
        actor: principal.subject,
        summary: summary(result) + stagedSummary(servable.staged),
      },
      async (tx) => {
        const audit: AuditEntry[] = [];
        for (const m of writes) {
          const previous = before.get(m.id);
          await this.manifests.save(tx, input.agentId, m, previous);
          audit.push({
            action: `manifest.${actionOf(m, previous)}`,
            targetType: 'manifest',
            targetId: `${input.agentId}/${m.id}`,
            before: previous && toManifestDocument(previous),
            after: toManifestDocument(m),
          });
        }
        return { result: undefined, audit: [...audit, ...stagedAudit(input.agentId, servable.staged)] };
      },
    );
    return { ...result, applied: true, revision };
  }
}

function actionOf(next: CapabilityManifest, previous: CapabilityManifest | undefined): string {
  if (!previous) return 'create';
  if (next.state === 'removed') return 'remove';
  if (next.state === 'deprecated' && previous.state !== 'deprecated') return 'deprecate';
  if (next.state === 'ga' && previous.state === 'preview') return 'promote';
  return 'update';
}

const summary = (p: ApplyPlanModel) =>
  `apply: +${p.added.length} ~${p.changed.length} deprecated ${p.deprecated.length} removed ${p.removed.length}`;
