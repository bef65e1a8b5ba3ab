import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { AdminPrincipal } from '@cp/auth';
import { InjectConfig, type AppConfig } from '@cp/common';
import { AuditWriter, type AuditEntry, type RegistryTx } from '@cp/db';
import { AccessPolicy } from '../auth/access-policy';
import { validateInput } from '../common/errors';
import {
  classifyAllowLists,
  gatedChanges,
  type AllowLists,
  type ChangeKind,
  type GatedChange,
  type WrittenCapability,
} from './change-kinds';
import { ChangeRequestNotices } from './change-request-notices';
import { ChangeRequestsRepository, type ChangeRequestRow, type NewChangeRequest } from './change-requests.repository';

export const REASON_MAX = 2000;
/** A break-glass reason or a decision's comment: said in words, bounded. */
export const reasonSchema = z.string().trim().min(1, 'must not be empty').max(REASON_MAX, `must be at most ${REASON_MAX} characters`);

export type Submission = Omit<NewChangeRequest, 'id' | 'author'>;

/**
 * Where the apply path meets the approval policy (ADR 0300): which of a plan's changes the policy
 * gates, holding a gated plan as a change request, and a platform admin's break-glass apply.
 * Depends on nothing of the manifests feature, which calls it.
 */
@Injectable()
export class ApprovalGate {
  constructor(
    private readonly requests: ChangeRequestsRepository,
    private readonly notices: ChangeRequestNotices,
    private readonly audit: AuditWriter,
    private readonly access: AccessPolicy,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** The kinds that need a second admin: the registry's policy, else the configured default. */
  async policyKinds(): Promise<ChangeKind[]> {
    return (await this.requests.policy())?.kinds ?? [...this.config.APPROVAL_DEFAULT_KINDS];
  }

  async gated(written: readonly WrittenCapability[]): Promise<GatedChange[]> {
    if (written.length === 0) return [];
    return gatedChanges(written, await this.policyKinds());
  }

  /** The widenings of an agent's allow lists the policy gates (kind `allowlist`, ADR 0325). */
  async gatedAllowLists(before: AllowLists, after: AllowLists): Promise<GatedChange[]> {
    const changes = classifyAllowLists(before, after);
    if (changes.length === 0) return [];
    const kinds = await this.policyKinds();
    return changes.filter((c) => kinds.includes(c.kind));
  }

  /** Holds a gated plan for a second admin: the request, its audit entry, its notices. */
  async submit(principal: AdminPrincipal, submission: Submission): Promise<ChangeRequestRow> {
    const request: NewChangeRequest = { ...submission, id: randomUUID(), author: principal.subject };
    const row = await this.auditedCreate(principal, request);
    await this.notices.announce('change_request.created', row);
    return row;
  }

  /** Refuses a break-glass apply by anyone but a platform admin, and a reason that is empty or too long. */
  breakGlassReason(principal: AdminPrincipal, reason: string): string {
    const valid = validateInput(reasonSchema, reason, '$.breakGlassReason');
    this.access.assertPlatformAdmin(principal, 'apply a gated change without approval (break-glass)');
    return valid;
  }

  /**
   * The break-glass record, written in the registry change's own transaction (the change and its
   * record commit together); the audit entry it answers goes into the same revision's audit.
   */
  breakGlassRecord(principal: AdminPrincipal, submission: Submission, reason: string) {
    const id = randomUUID();
    let recorded: ChangeRequestRow | undefined;
    return {
      write: async (tx: RegistryTx, revision: number): Promise<AuditEntry[]> => {
        recorded = await this.requests.create(tx, { ...submission, id, author: principal.subject }, { revision, reason });
        return [
          {
            action: 'change-request.break-glass',
            targetType: 'change-request',
            targetId: id,
            after: { agentId: submission.agentId, reason, kinds: recorded.kinds, changes: submission.changes },
          },
        ];
      },
      /** After the commit: the notices, and the record as written. */
      announce: async (): Promise<ChangeRequestRow | undefined> => {
        if (recorded) await this.notices.announce('change_request.break_glass', recorded);
        return recorded;
      },
      id,
    };
  }

  private auditedCreate(principal: AdminPrincipal, request: NewChangeRequest): Promise<ChangeRequestRow> {
    return this.requests.createAudited(request, (tx, row) =>
      this.audit.record(tx, principal.subject, [
        {
          action: 'change-request.create',
          targetType: 'change-request',
          targetId: row.id,
          after: { agentId: row.agentId, baseRevision: row.baseRevision, kinds: row.kinds, changes: request.changes },
        },
      ]),
    );
  }
}
