import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService, type PrismaModels, type RegistryTx } from '@cp/db';
import type { ChangeKind, GatedChange } from './change-kinds';

export type ChangeRequestRow = PrismaModels.ChangeRequestModel;
export type ChangeRequestStatus = 'pending' | 'applied' | 'rejected' | 'stale';

export interface NewChangeRequest {
  id: string;
  agentId: string;
  baseRevision: number;
  documents: unknown[];
  allowUnserved: string[];
  changes: GatedChange[];
  plan: unknown;
  /** A change of the agent's settings (kind allowlist): { before, after, fields }; absent for a manifest plan. */
  settings?: SettingsChange;
  author: string;
}

/** The agent settings change a request holds: the whole card base before and after, and what differs. */
export interface SettingsChange {
  before: unknown;
  after: unknown;
  fields: string[];
}

export interface ChangeRequestListFilter {
  agentId?: string;
  status?: ChangeRequestStatus;
  author?: string;
  breakGlass?: boolean;
  /** Restrict to agents of these teams (undefined: every agent). */
  teams?: string[];
}

const POLICY_ID = 'default';
type Db = Pick<RegistryTx, 'changeRequest'>;

/** Change requests and the approval policy; every write that must happen once is conditional on the status. */
@Injectable()
export class ChangeRequestsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async policy(): Promise<{ kinds: ChangeKind[]; updatedBy: string; updatedAt: Date } | null> {
    const row = await this.prisma.approvalPolicy.findUnique({ where: { id: POLICY_ID } });
    return row && { kinds: row.kinds as ChangeKind[], updatedBy: row.updatedBy, updatedAt: row.updatedAt };
  }

  async setPolicy(kinds: ChangeKind[], actor: string, audit: (tx: RegistryTx) => Promise<void>) {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.approvalPolicy.upsert({
        where: { id: POLICY_ID },
        create: { id: POLICY_ID, kinds, updatedBy: actor },
        update: { kinds, updatedBy: actor },
      });
      await audit(tx);
      return { kinds: row.kinds as ChangeKind[], updatedBy: row.updatedBy, updatedAt: row.updatedAt };
    });
  }

  /** A pending request (or, in a registry change's transaction, an applied break-glass record). */
  async create(db: Db | undefined, request: NewChangeRequest, applied?: { revision: number; reason: string }): Promise<ChangeRequestRow> {
    return (db ?? this.prisma).changeRequest.create({
      data: {
        id: request.id,
        agentId: request.agentId,
        baseRevision: request.baseRevision,
        documents: request.documents as Prisma.InputJsonValue,
        allowUnserved: request.allowUnserved,
        kinds: [...new Set(request.changes.map((c) => c.kind))],
        changes: request.changes as unknown as Prisma.InputJsonValue,
        plan: request.plan as Prisma.InputJsonValue,
        ...(request.settings ? { settings: request.settings as unknown as Prisma.InputJsonValue } : {}),
        author: request.author,
        ...(applied
          ? {
              status: 'applied',
              breakGlass: true,
              breakGlassReason: applied.reason,
              decidedBy: request.author,
              appliedRevision: applied.revision,
              decidedAt: new Date(),
            }
          : {}),
      },
    });
  }

  /** A pending request with its audit entry, in one transaction. */
  async createAudited(
    request: NewChangeRequest,
    audit: (tx: RegistryTx, row: ChangeRequestRow) => Promise<void>,
  ): Promise<ChangeRequestRow> {
    return this.prisma.$transaction(async (tx) => {
      const row = await this.create(tx, request);
      await audit(tx, row);
      return row;
    });
  }

  find(id: string): Promise<ChangeRequestRow | null> {
    return this.prisma.changeRequest.findUnique({ where: { id } });
  }

  async teamOf(agentId: string): Promise<string | undefined> {
    return (await this.prisma.agent.findUnique({ where: { id: agentId }, select: { teamId: true } }))?.teamId;
  }

  /** Newest first; the cursor is (createdAt, id). */
  async list(filter: ChangeRequestListFilter, after: [string, string] | undefined, take: number): Promise<ChangeRequestRow[]> {
    let agentIds: string[] | undefined;
    if (filter.teams) {
      agentIds = (await this.prisma.agent.findMany({ where: { teamId: { in: filter.teams } }, select: { id: true } })).map((a) => a.id);
    }
    const where: Prisma.ChangeRequestWhereInput = {
      AND: [
        filter.agentId ? { agentId: filter.agentId } : {},
        agentIds ? { agentId: { in: agentIds } } : {},
        filter.status ? { status: filter.status } : {},
        filter.author ? { author: filter.author } : {},
        filter.breakGlass === undefined ? {} : { breakGlass: filter.breakGlass },
        after ? { OR: [{ createdAt: { lt: new Date(after[0]) } }, { createdAt: new Date(after[0]), id: { lt: after[1] } }] } : {},
      ],
    };
    return this.prisma.changeRequest.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take });
  }

  /** pending → applied in the registry change's transaction; false when it was no longer pending. */
  async markApplied(tx: Db, id: string, by: string, comment: string | null, revision: number): Promise<boolean> {
    const { count } = await tx.changeRequest.updateMany({
      where: { id, status: 'pending' },
      data: { status: 'applied', decidedBy: by, decisionComment: comment, appliedRevision: revision, decidedAt: new Date() },
    });
    return count === 1;
  }

  /** pending → rejected or stale, with its audit entry in the same transaction; false when it was no longer pending. */
  async decide(
    id: string,
    status: 'rejected' | 'stale',
    by: string,
    comment: string | null,
    audit: (tx: RegistryTx) => Promise<void>,
  ): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.changeRequest.updateMany({
        where: { id, status: 'pending' },
        data: { status, decidedBy: by, decisionComment: comment, decidedAt: new Date() },
      });
      if (count === 1) await audit(tx);
      return count === 1;
    });
  }
}
