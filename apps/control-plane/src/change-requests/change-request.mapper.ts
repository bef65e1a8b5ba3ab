import type { ChangeKind, GatedChange } from './change-kinds';
import type { ChangeRequestRow, ChangeRequestStatus, SettingsChange } from './change-requests.repository';
import type { ChangeRequestModel, ChangeRequestPlanModel } from './dto/change-request.model';

export interface Approvability {
  canApprove: boolean;
  cannotApproveReason: string | null;
}

export function toChangeRequestModel(row: ChangeRequestRow, approvability: Approvability): ChangeRequestModel {
  return {
    id: row.id,
    agentId: row.agentId,
    baseRevision: row.baseRevision,
    status: row.status as ChangeRequestStatus,
    author: row.author,
    kinds: row.kinds as ChangeKind[],
    changes: row.changes as unknown as GatedChange[],
    plan: row.plan as unknown as ChangeRequestPlanModel,
    documents: row.documents,
    settings: (row.settings as unknown as SettingsChange | null) ?? null,
    breakGlass: row.breakGlass,
    breakGlassReason: row.breakGlassReason,
    decidedBy: row.decidedBy,
    decisionComment: row.decisionComment,
    appliedRevision: row.appliedRevision,
    createdAt: row.createdAt,
    decidedAt: row.decidedAt,
    ...approvability,
  };
}
