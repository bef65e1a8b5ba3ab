import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { AdminPrincipal } from '@cp/auth';
import { AuditWriter, RegistryError, RegistryErrorCode, type AuditEntry, type RegistryTx } from '@cp/db';
import { AccessPolicy } from '../auth/access-policy';
import { CommonError, CommonErrorCode, notFound, validateInput } from '../common/errors';
import { decodeCursor, pageSize, toPage, type Page, type PageInput } from '../common/graphql/pagination';
import { AgentsService } from '../agents/agents.service';
import { ApplyManifestsService } from '../manifests/apply-manifests.service';
import { ApprovalGate, reasonSchema } from './approval-gate.service';
import { CHANGE_KINDS, type ChangeKind } from './change-kinds';
import { ChangeRequestNotices } from './change-request-notices';
import { ChangeRequestError, ChangeRequestErrorCode } from './change-requests.errors';
import { ChangeRequestsRepository, type ChangeRequestRow, type SettingsChange } from './change-requests.repository';
import type { ChangeRequestFilter } from './dto/change-request.input';
import type { ApprovalPolicyModel, ChangeRequestModel } from './dto/change-request.model';
import { toChangeRequestModel, type Approvability } from './change-request.mapper';

const id = z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const filterSchema = z.object({
  agentId: id.nullish(),
  author: z.string().max(500, 'must be at most 500 characters').nullish(),
  status: z.enum(['pending', 'applied', 'rejected', 'stale']).nullish(),
  breakGlass: z.boolean().nullish(),
});
const kindsSchema = z.array(z.enum(CHANGE_KINDS)).max(CHANGE_KINDS.length * 4, 'too many kinds');

/**
 * Change requests (issue 32, ADR 0300): who may see, approve and reject them, and the approval that
 * applies the stored plan exactly at its base revision. The author never approves their own
 * (by subject: another token of the same subject is still the author); approving needs write
 * access to the agent, like making the change would.
 */
@Injectable()
export class ChangeRequestsService {
  constructor(
    private readonly requests: ChangeRequestsRepository,
    private readonly gate: ApprovalGate,
    private readonly notices: ChangeRequestNotices,
    private readonly applier: ApplyManifestsService,
    private readonly agents: AgentsService,
    private readonly access: AccessPolicy,
    private readonly audit: AuditWriter,
  ) {}

  async get(principal: AdminPrincipal, requestId: string): Promise<ChangeRequestModel> {
    const { row, teamId } = await this.readable(principal, requestId);
    return toChangeRequestModel(row, this.approvability(principal, row, teamId));
  }

  async list(principal: AdminPrincipal, filter: ChangeRequestFilter, page: PageInput | undefined): Promise<Page<ChangeRequestModel>> {
    const valid = validateInput(filterSchema, filter, '$.filter');
    const size = pageSize(page);
    const cursor = decodeCursor(page?.after);
    const rows = await this.requests.list(
      {
        agentId: valid.agentId ?? undefined,
        author: valid.author ?? undefined,
        status: valid.status ?? undefined,
        breakGlass: valid.breakGlass ?? undefined,
        teams: this.access.readableTeams(principal),
      },
      cursor && cursor.length === 2 ? [String(cursor[0]), String(cursor[1])] : undefined,
      size + 1,
    );
    const teams = new Map<string, string | undefined>();
    for (const agentId of new Set(rows.map((r) => r.agentId))) teams.set(agentId, await this.requests.teamOf(agentId));
    const page_ = toPage(rows, size, (r) => [r.createdAt.toISOString(), r.id]);
    return {
      ...page_,
      nodes: page_.nodes.map((row) => toChangeRequestModel(row, this.approvability(principal, row, teams.get(row.agentId)))),
    };
  }

  async approve(principal: AdminPrincipal, input: { id: string; comment?: string | null }): Promise<ChangeRequestModel> {
    const comment = input.comment === null || input.comment === undefined ? null : validateInput(reasonSchema, input.comment, '$.comment');
    const { row, teamId } = await this.readable(principal, input.id);
    this.assertMayDecide(principal, row, teamId, 'approve');
    if (row.author === principal.subject) {
      throw new ChangeRequestError(
        ChangeRequestErrorCode.SelfApproval,
        `${principal.subject} submitted change request ${row.id}: another admin must approve it`,
        { id: row.id },
      );
    }
    const markApplied = async (tx: RegistryTx, revision: number): Promise<AuditEntry[]> => {
      if (!(await this.requests.markApplied(tx, row.id, principal.subject, comment, revision))) throw this.notPending(row.id, 'approved');
      return [
        {
          action: 'change-request.approve',
          targetType: 'change-request',
          targetId: row.id,
          after: { agentId: row.agentId, author: row.author, approver: principal.subject, comment, revision, kinds: row.kinds },
        },
      ];
    };
    const settings = settingsOf(row);
    try {
      if (settings) await this.agents.applyApproved(principal, { ...row, settings }, markApplied);
      else await this.applier.applyApproved(principal, row, markApplied);
    } catch (error) {
      if (error instanceof RegistryError && error.code === RegistryErrorCode.StaleRevision) throw await this.stale(principal, row, error);
      throw error;
    }
    const applied = (await this.requests.find(row.id))!;
    await this.notices.announce('change_request.approved', applied);
    return toChangeRequestModel(applied, this.approvability(principal, applied, teamId));
  }

  async reject(principal: AdminPrincipal, input: { id: string; comment?: string | null }): Promise<ChangeRequestModel> {
    const comment = validateInput(reasonSchema, input.comment ?? '', '$.comment');
    const { row, teamId } = await this.readable(principal, input.id);
    this.assertMayDecide(principal, row, teamId, 'reject');
    const decided = await this.requests.decide(row.id, 'rejected', principal.subject, comment, (tx) =>
      this.audit.record(tx, principal.subject, [
        {
          action: 'change-request.reject',
          targetType: 'change-request',
          targetId: row.id,
          after: { agentId: row.agentId, author: row.author, comment },
        },
      ]),
    );
    if (!decided) throw this.notPending(row.id, 'rejected');
    const rejected = (await this.requests.find(row.id))!;
    await this.notices.announce('change_request.rejected', rejected);
    return toChangeRequestModel(rejected, this.approvability(principal, rejected, teamId));
  }

  async policy(): Promise<ApprovalPolicyModel> {
    const stored = await this.requests.policy();
    return stored
      ? { ...stored, isDefault: false }
      : { kinds: await this.gate.policyKinds(), isDefault: true, updatedBy: null, updatedAt: null };
  }

  async setPolicy(principal: AdminPrincipal, kinds: ChangeKind[]): Promise<ApprovalPolicyModel> {
    this.access.assertPlatformAdmin(principal, 'change the approval policy');
    const wanted = [...new Set(validateInput(kindsSchema, kinds, '$.kinds'))].sort();
    const before = await this.policy();
    const saved = await this.requests.setPolicy(wanted, principal.subject, (tx) =>
      this.audit.record(tx, principal.subject, [
        { action: 'approval-policy.set', targetType: 'approval-policy', targetId: 'default', before: before.kinds, after: wanted },
      ]),
    );
    return { ...saved, isDefault: false };
  }

  /** The request, if the caller may read its agent; NOT_FOUND otherwise, exactly as for a missing one. */
  private async readable(principal: AdminPrincipal, requestId: string): Promise<{ row: ChangeRequestRow; teamId: string | undefined }> {
    const valid = validateInput(id, requestId, '$.id');
    const row = await this.requests.find(valid);
    const teamId = row ? await this.requests.teamOf(row.agentId) : undefined;
    if (!row || teamId === undefined || !this.access.canRead(principal, teamId)) throw notFound('change request', valid);
    return { row, teamId };
  }

  private assertMayDecide(principal: AdminPrincipal, row: ChangeRequestRow, teamId: string | undefined, verb: string): void {
    if (teamId === undefined || !this.access.canWrite(principal, teamId)) {
      throw new CommonError(
        CommonErrorCode.Forbidden,
        `${principal.subject} may not ${verb} change request ${row.id}: it changes agent "${row.agentId}", which you do not administer`,
        { type: 'change request', id: row.id },
      );
    }
    if (row.status !== 'pending') throw this.notPending(row.id, row.status);
  }

  private approvability(principal: AdminPrincipal, row: ChangeRequestRow, teamId: string | undefined): Approvability {
    if (row.status !== 'pending') return { canApprove: false, cannotApproveReason: `it is ${row.status}` };
    if (row.author === principal.subject)
      return { canApprove: false, cannotApproveReason: 'you submitted it: another admin must approve it' };
    if (teamId === undefined || !this.access.canWrite(principal, teamId))
      return { canApprove: false, cannotApproveReason: `you do not administer agent "${row.agentId}"` };
    if (row.kinds.includes('allowlist') && !principal.roles.includes('platform-admin'))
      return { canApprove: false, cannotApproveReason: 'it widens an allow list: only a platform-admin may approve it' };
    return { canApprove: true, cannotApproveReason: null };
  }

  private notPending(requestId: string, status: string): ChangeRequestError {
    return new ChangeRequestError(
      ChangeRequestErrorCode.NotPending,
      `change request ${requestId} is ${status}: only a pending request is approved or rejected`,
      { id: requestId, status },
    );
  }

  /** The agent moved past the base revision: the request becomes stale (once), and the answer says to plan again. */
  private async stale(principal: AdminPrincipal, row: ChangeRequestRow, error: RegistryError): Promise<ChangeRequestError> {
    const current = error.details.currentRevision;
    const marked = await this.requests.decide(row.id, 'stale', principal.subject, null, (tx) =>
      this.audit.record(tx, principal.subject, [
        {
          action: 'change-request.stale',
          targetType: 'change-request',
          targetId: row.id,
          after: { agentId: row.agentId, baseRevision: row.baseRevision, currentRevision: current },
        },
      ]),
    );
    if (!marked) return this.notPending(row.id, (await this.requests.find(row.id))?.status ?? 'gone');
    if (settingsOf(row)) {
      return new ChangeRequestError(
        ChangeRequestErrorCode.Stale,
        `change request ${row.id} was made against the settings agent "${row.agentId}" had at revision ${row.baseRevision}, which changed since: nothing was applied; request the change again from the current settings`,
        { id: row.id, baseRevision: row.baseRevision, currentRevision: current },
      );
    }
    return new ChangeRequestError(
      ChangeRequestErrorCode.Stale,
      `change request ${row.id} was planned at revision ${row.baseRevision} of agent "${row.agentId}", which is now at revision ${String(current)}: nothing was applied; plan the change again and submit a new request`,
      { id: row.id, baseRevision: row.baseRevision, currentRevision: current },
    );
  }
}

/** The settings change an allow-list request holds; null for a manifest plan. */
const settingsOf = (row: ChangeRequestRow): SettingsChange | null => (row.settings as unknown as SettingsChange | null) ?? null;
