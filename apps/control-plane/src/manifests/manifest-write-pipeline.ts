import { Injectable } from '@nestjs/common';
import {
  sunsetIssues,
  toManifestDocument,
  type CapabilityManifest,
  type Leak,
  type RegistrySnapshot,
  type UnservedCapability,
  type ValidationIssue,
} from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import { RegistryWriter, type AuditEntry, type RegistryTx } from '@cp/db';
import { Clock, InjectConfig, type AppConfig } from '@cp/common';
import { InputValidationError } from '../common/errors';
import { ServabilityGate, stagedAudit, stagedSummary } from '../node-inventory/servability-gate';
import { ManifestAccess } from './manifest-access';
import { publicCardImpact, referenceIssues, registryIssues } from './manifest-checks';
import { ManifestError, ManifestErrorCode } from './manifests.errors';
import { ManifestsRepository } from './manifests.repository';

/** What a mutation makes of the registry it starts from (built after access and revision are checked). */
export interface ManifestDraft {
  /** The manifests this change writes (empty: it changes nothing). */
  writes: CapabilityManifest[];
  /** The agent's whole registry after the change. */
  resulting: CapabilityManifest[];
  /** The documents the caller sent (their team, scope and tenant references are checked). */
  sent: readonly CapabilityManifest[];
  /** The mutation's own rule violations (lifecycle, plan). */
  issues: ValidationIssue[];
  /** Starts the message of a refusal, e.g. `manifest "x" cannot be created`. */
  refusal: string;
  /** Where a capability's document is in what the caller sent; undefined when it did not send it. */
  pathOf(id: string): string | undefined;
}

export interface ManifestWriteRequest<D extends ManifestDraft = ManifestDraft> {
  agentId: string;
  /** Required to write; a dry run may leave it out. */
  expectedRevision: number | null | undefined;
  allowUnserved: readonly string[] | null | undefined;
  draft(snapshot: RegistrySnapshot): D;
}

export interface PreparedManifestWrite<D extends ManifestDraft = ManifestDraft> {
  snapshot: RegistrySnapshot;
  /** The mutation's draft as it made it (apply keeps its plan there). */
  draft: D;
  writes: CapabilityManifest[];
  impact: ReturnType<typeof publicCardImpact>;
  /** Capabilities let through only because allowUnserved named them (audited on write). */
  staged: UnservedCapability[];
}

/**
 * The one path every manifest change takes (ADR 0125), single mutation or apply:
 *   1. write access to the agent (NOT_FOUND otherwise: no existence oracle);
 *   2. the expected revision (STALE_REVISION → CONFLICT before any document is judged);
 *   3. the mutation's draft: its documents parsed and its own rules (lifecycle, plan);
 *   4. the whole resulting registry validated by the core, the references, the servability gate;
 *   5. (write only) the public-card leak guard, then ONE RegistryWriter change: revision, outbox,
 *      one audit entry per written capability named by the kind of change, allowUnserved entries.
 * A dry run stops after 4 and reports leaks instead of refusing them. A change that writes
 * nothing bumps nothing.
 */
@Injectable()
export class ManifestWritePipeline {
  constructor(
    private readonly access: ManifestAccess,
    private readonly manifests: ManifestsRepository,
    private readonly writer: RegistryWriter,
    private readonly servability: ServabilityGate,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async prepare<D extends ManifestDraft>(principal: AdminPrincipal, request: ManifestWriteRequest<D>): Promise<PreparedManifestWrite<D>> {
    const snapshot = await this.access.registryForWrite(principal, request.agentId, request.expectedRevision);
    const draft = request.draft(snapshot);
    const at = (id: string) => draft.pathOf(id) ?? '$';
    const servable = await this.servability.check({
      snapshot,
      resulting: draft.resulting,
      written: draft.writes,
      allowUnserved: request.allowUnserved ?? [],
      pathOf: at,
    });
    const before = new Map(snapshot.manifests.map((m) => [m.id, m] as const));
    const now = this.clock.now();
    const notice = this.config.DEPRECATION_SUNSET_MIN_NOTICE_DAYS;
    refuseIf(draft.refusal, [
      ...draft.issues,
      ...draft.writes.flatMap((m) =>
        sunsetIssues(before.get(m.id), m, now, notice).map((i) => ({ ...i, path: i.path.replace(/^\$/, at(m.id)) })),
      ),
      ...registryIssues(draft.resulting, (id) => draft.pathOf(id)),
      ...(await referenceIssues(this.manifests, draft.sent, at)),
      ...servable.issues,
    ]);
    return { snapshot, draft, writes: draft.writes, impact: publicCardImpact(snapshot, draft.resulting), staged: servable.staged };
  }

  /**
   * Writes a prepared change; answers the new revision, or the current one when nothing changes.
   * `also` writes more in the same transaction (a change request's status, ADR 0300) and answers its audit entries.
   */
  async commit(
    principal: AdminPrincipal,
    prepared: PreparedManifestWrite,
    expectedRevision: number,
    summary: string,
    also?: (tx: RegistryTx, revision: number) => Promise<AuditEntry[]>,
  ): Promise<number> {
    const { snapshot, writes, impact, staged } = prepared;
    if (writes.length === 0) return snapshot.revision;
    if (impact.leaks.length) throw leakError(impact.leaks);
    const agentId = snapshot.agentId;
    const before = new Map(snapshot.manifests.map((m) => [m.id, m] as const));
    const now = this.clock.now();
    const { revision } = await this.writer.change(
      { agentId, expectedRevision, actor: principal.subject, summary: summary + stagedSummary(staged) },
      async (tx, revision) => {
        const audit: AuditEntry[] = [];
        for (const m of writes) {
          const previous = before.get(m.id);
          await this.manifests.save(tx, agentId, m, previous, now);
          audit.push({
            action: `manifest.${changeKind(m, previous)}`,
            targetType: 'manifest',
            targetId: `${agentId}/${m.id}`,
            before: previous && toManifestDocument(previous),
            after: toManifestDocument(m),
          });
        }
        const more = also ? await also(tx, revision) : [];
        return { result: undefined, audit: [...audit, ...stagedAudit(agentId, staged), ...more] };
      },
    );
    return revision;
  }
}

/** The kind of change, from the manifest before and after: the same whichever mutation made it. */
export function changeKind(next: CapabilityManifest, previous: CapabilityManifest | undefined): string {
  if (!previous) return 'create';
  if (next.state === 'removed') return 'remove';
  if (next.state === 'deprecated' && previous.state !== 'deprecated') return 'deprecate';
  if (next.state === 'ga' && previous.state === 'preview') return 'promote';
  return 'update';
}

/** Every refusal of a manifest change: BAD_USER_INPUT, each problem with its path, all named in the message. */
export function refuseIf(refusal: string, issues: ValidationIssue[]): void {
  if (issues.length) throw refusalError(refusal, issues);
}

/** The message names the first few problems (it is logged and shown); `validationErrors` carries them all. */
export function refusalError(refusal: string, issues: ValidationIssue[]): InputValidationError {
  const unique = dedupe(issues);
  const named = unique.slice(0, MESSAGE_ISSUES).map((i) => `${i.path} ${i.message}`);
  const more = unique.length > MESSAGE_ISSUES ? `; and ${unique.length - MESSAGE_ISSUES} more` : '';
  return new InputValidationError(unique, `${refusal}: ${named.join('; ')}${more}`);
}

const MESSAGE_ISSUES = 10;

export function leakError(leaks: readonly Leak[]): ManifestError {
  return new ManifestError(
    ManifestErrorCode.PublicCardLeak,
    `the public card would show text of non-public skills (${leaks.map((l) => `${l.skillId}.${l.field}`).join(', ')})`,
    { leaks },
  );
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}
