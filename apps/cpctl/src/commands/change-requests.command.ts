/**
 * `cpctl change-requests list|approve|reject` (issue 32, ADR 0300): the requests that hold gated
 * plans for a second admin. Approving applies the stored plan at its base revision on the control
 * plane (exit 6 when the agent moved on: plan again); the author can never approve their own.
 */
import { decideChangeRequest, listChangeRequests, type ChangeRequest, type ChangeRequestQuery } from '../api/change-requests-api';
import { clientFor, type CommandContext } from '../context';
import { ExitCode } from '../exit-codes';
import type { Reporter } from '../output/reporter';

function renderRequest(r: Reporter, cr: ChangeRequest): void {
  const who = cr.breakGlass ? `break-glass by ${cr.author}: ${cr.breakGlassReason ?? ''}` : `by ${cr.author}`;
  r.line(`${cr.id}  ${cr.status.padEnd(8)} ${cr.agentId}@${cr.baseRevision}  ${who}  ${cr.createdAt}`);
  for (const c of cr.changes) r.line(`    ${c.kind.padEnd(12)} ${c.capabilityId}: ${c.detail}`);
  if (cr.decidedBy) r.line(`    decided by ${cr.decidedBy}${cr.decisionComment ? `: ${cr.decisionComment}` : ''}`);
  if (cr.status === 'pending' && !cr.canApprove && cr.cannotApproveReason) r.line(`    you may not approve it: ${cr.cannotApproveReason}`);
}

export async function changeRequestsListCommand(ctx: CommandContext, query: ChangeRequestQuery): Promise<ExitCode> {
  const r = ctx.reporter;
  const client = clientFor(ctx);
  const requests = await r.progress(`reading change requests from ${client.url}`, () => listChangeRequests(client, query));
  if (requests.length === 0) r.line('no change requests');
  for (const cr of requests) renderRequest(r, cr);
  r.result({ command: 'change-requests list', ok: true, exitCode: ExitCode.Ok, changeRequests: requests });
  return ExitCode.Ok;
}

export async function changeRequestDecideCommand(
  ctx: CommandContext,
  decision: 'approve' | 'reject',
  id: string,
  comment: string | undefined,
): Promise<ExitCode> {
  const r = ctx.reporter;
  const client = clientFor(ctx);
  const cr = await r.progress(`${decision === 'approve' ? 'approving' : 'rejecting'} change request ${id}`, () =>
    decideChangeRequest(client, decision, id, comment),
  );
  if (decision === 'approve') r.line(`${r.mark('ok')}applied: agent ${cr.agentId} is now at revision ${cr.appliedRevision}`);
  else r.line(`${r.mark('ok')}rejected change request ${cr.id}`);
  renderRequest(r, cr);
  r.result({ command: `change-requests ${decision}`, ok: true, exitCode: ExitCode.Ok, changeRequest: cr });
  return ExitCode.Ok;
}
