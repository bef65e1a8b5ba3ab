import { Injectable } from '@nestjs/common';
import type { AdminPrincipal, NodePrincipal } from '@cp/auth';
import { toManifestDocument } from '@cp/capabilities';
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
@Injectable()
export class RoutingClarificationsService {
  constructor(
    private readonly repository: RoutingClarificationsRepository,
    private readonly agents: AgentsService,
    private readonly manifests: ManifestsService,
    private readonly changes: ManifestChangesService,
  ) {}

  async ingest(principal: NodePrincipal, body: unknown): Promise<{ accepted: number }> {
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
    await this.repository.record(principal.agentId, choices, new Date());
    return { accepted: choices.length };
  }

  async list(principal: AdminPrincipal, agentId: string, status: string | undefined): Promise<ClarificationRecord[]> {
    await this.agents.get(principal, agentId);
    return this.repository.list(agentId, status);
  }

  async dismiss(principal: AdminPrincipal, id: string): Promise<ClarificationRecord> {
    const row = await this.repository.find(id);
    if (!row) throw notFound('routing clarification', id);
    await this.agents.getForWrite(principal, row.agentId);
    return this.repository.setStatus(id, 'dismissed');
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
    const changed = await this.changes.update(principal, { agentId: row.agentId, expectedRevision: input.expectedRevision, manifest: doc });
    const clarification = await this.repository.setStatus(row.id, 'promoted');
    return { clarification, revision: changed.revision };
  }
}
