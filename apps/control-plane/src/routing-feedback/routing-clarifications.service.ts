import { Injectable, Logger } from '@nestjs/common';
import type { AdminPrincipal, NodePrincipal } from '@cp/auth';
import { entitlement, toManifestDocument } from '@cp/capabilities';
import { InjectConfig, type AppConfig } from '@cp/common';
import { RegistryErrorCode, type AuditEntry, type RegistryTx } from '@cp/db';
import { clarificationBatchSchema } from '@cp/node-protocol';
import { AgentsService } from '../agents/agents.service';
import { InputValidationError, notFound } from '../common/errors';
import { ManifestChangesService } from '../manifests/manifest-changes.service';
import { ManifestsService } from '../manifests/manifests.service';
import { parseNodeBody } from '../node-auth/parse-node-body';
import { PromoteAs, type PromoteClarificationInput } from './dto/routing-clarification.model';
import { ClarificationIngestError, ClarificationIngestErrorCode } from './routing-clarifications.errors';
import { RoutingClarificationsRepository, type ClarificationRecord } from './routing-clarifications.repository';

/**
 * Learning from clarifications (ADR 0094): nodes report which capability callers chose when
 * asked; admins review them and promote one into the manifest (an example, or a routing term)
 * through the ordinary manifest update: validated, audited, a new revision the fleet picks up.
 * Promotion only adds text to a capability the caller already chose within its own entitled set;
 * visibility, scopes and tenants are never touched, so nothing learned widens entitlement.
 */
/** Who automatic promotions are made and audited as (ADR 0336): never a person's token. */
export const AUTO_PROMOTION_ACTOR = 'system:auto-promotion';
const AUTO_PROMOTER: AdminPrincipal = { kind: 'admin', subject: AUTO_PROMOTION_ACTOR, roles: ['platform-admin'], teams: [] };

/** What a clarification report did: how many choices were recorded, and what automatic promotion made of them (ADR 0336). */
export interface IngestOutcome {
  accepted: number;
  /** Clarifications promoted as examples by this report (their N-th identical answer). */
  autoPromoted: { id: string; capabilityId: string; revision: number }[];
  /** Clarifications that reached N identical answers here but were not promoted, and why. */
  notPromoted: { id: string; capabilityId: string; reason: string }[];
}

/** Control and format characters (C0, C1, DEL, zero-width, bidi): never in text published without review. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;

@Injectable()
export class RoutingClarificationsService {
  private readonly log = new Logger(RoutingClarificationsService.name);

  constructor(
    private readonly repository: RoutingClarificationsRepository,
    private readonly agents: AgentsService,
    private readonly manifests: ManifestsService,
    private readonly changes: ManifestChangesService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async ingest(principal: NodePrincipal, body: unknown): Promise<IngestOutcome> {
    const { choices } = parseNodeBody(clarificationBatchSchema, body, 'clarification report');
    // The node's token names its agent: a node can only ever report about its own capabilities.
    const known = await this.repository.knownCapabilities(principal.agentId, [...new Set(choices.map((c) => c.capabilityId))]);
    const issues = choices.flatMap((c, i) =>
      known.has(c.capabilityId)
        ? []
        : [
            {
              path: `$.choices[${i}].capabilityId`,
              message: `"${c.capabilityId}" is not a live capability of agent "${principal.agentId}"`,
            },
          ],
    );
    if (issues.length > 0) throw new ClarificationIngestError(ClarificationIngestErrorCode.UnknownCapability, issues[0].message, issues);
    const rows = await this.repository.record(principal.agentId, choices, new Date());
    return { accepted: choices.length, ...(await this.autoPromote(principal.agentId, rows)) };
  }

  /**
   * Automatic promotion (ADR 0336, off unless CLARIFICATION_AUTO_PROMOTE_AFTER > 0): a clarification
   * the same caller (tenant) answered the same way N times is promoted as an example through
   * `promote`, the path an admin takes (validation, leak check, audit as AUTO_PROMOTION_ACTOR, a
   * new revision). Held instead, and named in the answer: text with control or format characters,
   * a capability the tenant may not be routed to (removed, internal, a preview it has not opted in
   * to, limited to other tenants), and anything the write path refuses.
   */
  private async autoPromote(agentId: string, rows: readonly ClarificationRecord[]): Promise<Omit<IngestOutcome, 'accepted'>> {
    const outcome: Omit<IngestOutcome, 'accepted'> = { autoPromoted: [], notPromoted: [] };
    const after = this.config.CLARIFICATION_AUTO_PROMOTE_AFTER;
    if (after === 0) return outcome;
    // The last upsert of a row holds its count after this report; each row is judged once.
    const reached = [...new Map(rows.map((r) => [r.id, r] as const)).values()].filter((r) => r.status === 'pending' && r.count >= after);
    for (const row of reached) {
      const held = (reason: string) => outcome.notPromoted.push({ id: row.id, capabilityId: row.capabilityId, reason });
      if (UNPRINTABLE.test(row.text)) {
        held('the text holds control or format characters');
        continue;
      }
      const state = await this.repository.agentState(agentId);
      const manifest = await this.manifests
        .get(AUTO_PROMOTER, agentId, row.capabilityId)
        .then((r) => r.manifest)
        .catch(() => undefined);
      if (!state || !manifest) {
        held(`"${row.capabilityId}" is not a capability of agent "${agentId}"`);
        continue;
      }
      // The report names no scopes: the tenant's part of entitlement is what the control plane can check.
      const caller = { principal: row.tenant, tenant: row.tenant, scopes: [...manifest.requiresScopes] };
      const decision = entitlement(manifest, caller, { previewTenants: state.previewTenants });
      if (!decision.routable) {
        held(`tenant "${row.tenant}" may not be routed to "${row.capabilityId}": ${decision.reason}`);
        continue;
      }
      try {
        const done = await this.promote(AUTO_PROMOTER, { id: row.id, as: PromoteAs.EXAMPLE, expectedRevision: state.revision });
        outcome.autoPromoted.push({ id: row.id, capabilityId: row.capabilityId, revision: done.revision });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const stale = (error as { code?: string }).code === RegistryErrorCode.StaleRevision;
        this.log.warn(`automatic promotion of clarification ${row.id} (agent ${agentId}) held: ${reason}`);
        held(stale ? `the agent changed meanwhile (${reason}); promoted on the next identical answer` : reason);
      }
    }
    return outcome;
  }

  async list(principal: AdminPrincipal, agentId: string, status: string | undefined): Promise<ClarificationRecord[]> {
    await this.agents.get(principal, agentId);
    return this.repository.list(agentId, status);
  }

  async dismiss(principal: AdminPrincipal, id: string): Promise<ClarificationRecord> {
    const row = await this.repository.find(id);
    if (!row) throw notFound('routing clarification', id);
    await this.agents.getForWrite(principal, row.agentId);
    if (row.status === 'dismissed') return row;
    // A promoted text is in the manifest: calling it dismissed would misstate what the registry holds.
    if (row.status === 'promoted')
      throw new InputValidationError([
        {
          path: '$.id',
          message: 'this clarification is already promoted (its text is in the manifest); remove the text from the manifest instead',
        },
      ]);
    // Only if still pending: a promotion that committed meanwhile stands.
    if (!(await this.repository.decideIfPending(this.repository.db, id, 'dismissed'))) throw decidedMeanwhile();
    return (await this.repository.find(id))!;
  }

  async promote(
    principal: AdminPrincipal,
    input: PromoteClarificationInput,
  ): Promise<{ clarification: ClarificationRecord; revision: number }> {
    const row = await this.repository.find(input.id);
    if (!row) throw notFound('routing clarification', input.id);
    await this.agents.getForWrite(principal, row.agentId);
    if (row.status !== 'pending')
      throw new InputValidationError([{ path: '$.id', message: `this clarification is already ${row.status}` }]);
    const text = (input.text ?? row.text).trim();
    if (text === '') throw new InputValidationError([{ path: '$.text', message: 'must not be empty' }]);
    const current = await this.manifests.get(principal, row.agentId, row.capabilityId);
    const doc = toManifestDocument(current.manifest);
    if (input.as === PromoteAs.EXAMPLE) {
      doc.skill.examples = [...new Set([...(doc.skill.examples ?? []), text])];
    } else {
      doc.routing = { ...doc.routing, terms: [...new Set([...(doc.routing?.terms ?? []), text])] };
    }
    // The ordinary update path: full validation, leak check, audit, revision, fleet invalidation.
    // The clarification is marked promoted in the same transaction, and only if still pending: a
    // dismissal or another promotion meanwhile rolls the manifest change back.
    let marked = false;
    const markPromoted = async (tx: RegistryTx): Promise<AuditEntry[]> => {
      marked = true;
      if (!(await this.repository.decideIfPending(tx, row.id, 'promoted'))) throw decidedMeanwhile();
      return [];
    };
    const changed = await this.changes.update(
      principal,
      { agentId: row.agentId, expectedRevision: input.expectedRevision, manifest: doc },
      markPromoted,
    );
    // The manifest already said it (nothing written, no transaction): the mark stands alone.
    if (!marked && !(await this.repository.decideIfPending(this.repository.db, row.id, 'promoted'))) throw decidedMeanwhile();
    const clarification = (await this.repository.find(row.id))!;
    return { clarification, revision: changed.revision };
  }
}

const decidedMeanwhile = () =>
  new InputValidationError([{ path: '$.id', message: 'this clarification was dismissed or promoted meanwhile; nothing was changed' }]);
