/** The admin API's change requests (issue 32, ADR 0300) as cpctl uses them. */
import type { GraphQLClient } from './graphql-client';
import { APPROVE_CHANGE_REQUEST, CHANGE_REQUESTS_QUERY, REJECT_CHANGE_REQUEST } from './operations';
import { CpctlErrorCode } from '../cpctl.errors';
import type { GatedChange } from './registry-api';

export interface ChangeRequest {
  id: string;
  agentId: string;
  baseRevision: number;
  status: 'pending' | 'applied' | 'rejected' | 'stale';
  author: string;
  kinds: string[];
  changes: GatedChange[];
  breakGlass: boolean;
  breakGlassReason: string | null;
  decidedBy: string | null;
  decisionComment: string | null;
  appliedRevision: number | null;
  createdAt: string;
  canApprove: boolean;
  cannotApproveReason: string | null;
}

export interface ChangeRequestQuery {
  agentId?: string;
  status?: string;
  author?: string;
  limit: number;
}

export async function listChangeRequests(client: GraphQLClient, query: ChangeRequestQuery): Promise<ChangeRequest[]> {
  const filter = { agentId: query.agentId ?? null, status: query.status ?? null, author: query.author ?? null };
  const out: ChangeRequest[] = [];
  let after: string | null = null;
  do {
    const data: { changeRequests: { nodes: ChangeRequest[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } =
      await client.request(
        CHANGE_REQUESTS_QUERY,
        { filter, page: { first: Math.min(100, query.limit - out.length), after } },
        CpctlErrorCode.Usage,
      );
    out.push(...data.changeRequests.nodes);
    after = data.changeRequests.pageInfo.hasNextPage ? data.changeRequests.pageInfo.endCursor : null;
  } while (after && out.length < query.limit);
  return out;
}

export async function decideChangeRequest(
  client: GraphQLClient,
  decision: 'approve' | 'reject',
  id: string,
  comment: string | undefined,
): Promise<ChangeRequest> {
  const input = { id, comment: comment ?? null };
  if (decision === 'approve') {
    return (await client.request<{ approveChangeRequest: ChangeRequest }>(APPROVE_CHANGE_REQUEST, { input }, CpctlErrorCode.Usage))
      .approveChangeRequest;
  }
  return (await client.request<{ rejectChangeRequest: ChangeRequest }>(REJECT_CHANGE_REQUEST, { input }, CpctlErrorCode.Usage))
    .rejectChangeRequest;
}
