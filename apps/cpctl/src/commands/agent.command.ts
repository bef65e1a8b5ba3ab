/**
 * `cpctl agent allow-list <agent> <webhook|upstream> [entries...]`: replaces one of the agent's
 * allow lists (the private hosts push webhooks or upstream agents may reach, ADR 0211, 0230). A
 * widening the approval policy gates applies nothing: a change request holds it for a second admin
 * and cpctl exits 20, as `cpctl apply` does (ADR 0325); narrowing applies at once.
 */
import { fetchAgent, setAllowList, type AllowListName } from '../api/registry-api';
import { clientFor, type CommandContext } from '../context';
import { ExitCode } from '../exit-codes';

export const ALLOW_LIST_ARGS: Record<string, AllowListName> = { webhook: 'webhookAllow', upstream: 'upstreamAllow' };

export async function agentAllowListCommand(
  ctx: CommandContext,
  agentId: string,
  list: AllowListName,
  entries: string[],
  options: { breakGlassReason?: string },
): Promise<ExitCode> {
  const r = ctx.reporter;
  const client = clientFor(ctx);
  const remote = await r.progress(`reading agent ${agentId} from ${client.url}`, () => fetchAgent(client, agentId));
  const before = remote.base.protocol[list] ?? [];
  const base = { command: 'agent allow-list', agentId, list, before, after: entries };
  if (before.length === entries.length && before.every((e, i) => e === entries[i])) {
    r.line(`${r.mark('ok')}nothing to change: protocol.${list} of agent ${agentId} already is [${before.join(', ')}]`);
    r.result({ ...base, ok: true, exitCode: ExitCode.Ok, applied: false, revision: remote.revision, changeRequest: null });
    return ExitCode.Ok;
  }
  const done = await r.progress(`setting protocol.${list} at revision ${remote.revision}`, () =>
    setAllowList(client, agentId, { list, entries, expectedRevision: remote.revision, breakGlassReason: options.breakGlassReason }),
  );
  const request = done.changeRequest;
  if (request && request.status === 'pending') {
    for (const c of request.changes) r.line(`  ${r.c.yellow('?')} ${c.kind}: ${c.detail}`);
    r.problem(
      r.c.yellow(
        `Nothing applied: change request ${request.id} holds this change for a second admin (cpctl change-requests approve ${request.id}).`,
      ),
    );
    r.result({
      ...base,
      ok: false,
      exitCode: ExitCode.ChangeRequestFiled,
      applied: false,
      revision: done.revision,
      changeRequest: request,
    });
    return ExitCode.ChangeRequestFiled;
  }
  r.line(
    `${r.mark('ok')}applied${request?.breakGlass ? ' (break-glass: audited and announced)' : ''}: protocol.${list} of agent ${agentId} is [${done.lists[list].join(', ')}] at revision ${done.revision}`,
  );
  r.result({ ...base, ok: true, exitCode: ExitCode.Ok, applied: true, revision: done.revision, changeRequest: request });
  return ExitCode.Ok;
}
