/**
 * `cpctl gateway drift <agent>` (issue 28 item 6, ADR 0275): each upstream agent's own card
 * against the registry, as the agent's live gateway nodes last fetched it: skills the upstream
 * offers that no manifest covers, manifests whose upstream no longer lists their skill, upstreams
 * that do not answer, and what each node cannot serve. Exit 0 when nothing drifted, 19 otherwise
 * (a CI job can branch on it).
 */
import { UPSTREAM_DRIFT_QUERY } from '../api/operations';
import { clientFor, type CommandContext } from '../context';
import { ExitCode } from '../exit-codes';

interface Drift {
  card: string;
  status: 'ok' | 'unreachable' | 'unchecked';
  reason: string | null;
  checkedAt: string | null;
  truncated: boolean;
  covered: { capabilityId: string; skill: string }[];
  uncovered: { id: string; name: string | null }[];
  missing: { capabilityId: string; skill: string }[];
}

interface FleetDrift {
  fleet: { agentId: string; nodes: { nodeId: string; live: boolean; unservable: string[]; warnings: string[] }[]; upstreamDrift: Drift[] };
}

export async function gatewayDriftCommand(ctx: CommandContext, agentId: string): Promise<ExitCode> {
  const r = ctx.reporter;
  const client = clientFor(ctx);
  // An unknown agent is the client's NOT_FOUND (exit 9), a bad token BAD_TOKEN (exit 7).
  const data = await r.progress(`reading the fleet of ${agentId}`, () => client.request<FleetDrift>(UPSTREAM_DRIFT_QUERY, { agentId }));
  const drift = data.fleet.upstreamDrift;
  const drifted = drift.filter((d) => d.status !== 'ok' || d.uncovered.length > 0 || d.missing.length > 0);
  const exitCode = drifted.length === 0 ? ExitCode.Ok : ExitCode.UpstreamDrift;
  if (drift.length === 0) r.line(`agent ${agentId} forwards no capability to an upstream agent`);
  for (const d of drift) {
    const head = d.status === 'ok' ? r.mark(d.uncovered.length || d.missing.length ? 'warn' : 'ok') : r.mark('bad');
    const when = d.checkedAt ? ` (fetched ${d.checkedAt})` : '';
    r.line(`${head}${d.card}: ${d.status}${d.reason ? `: ${d.reason}` : ''}${when}`);
    for (const c of d.covered) r.line(`    served   ${c.capabilityId}${c.skill !== c.capabilityId ? ` (skill "${c.skill}")` : ''}`);
    for (const m of d.missing) r.line(`    missing  ${m.capabilityId}: the upstream no longer lists skill "${m.skill}"`);
    for (const u of d.uncovered)
      r.line(`    uncovered skill "${u.id}"${u.name ? ` (${u.name})` : ''}: no manifest serves it (cpctl import --from-card ${d.card})`);
    if (d.truncated) r.line('    (the card lists more skills than nodes report: uncovered is partial)');
  }
  for (const n of data.fleet.nodes.filter((x) => x.live && x.warnings.length > 0))
    for (const w of n.warnings) r.problem(`${r.c.yellow('node')} ${n.nodeId}: ${w}`);
  r.result({ command: 'gateway drift', ok: exitCode === ExitCode.Ok, exitCode, agentId, upstreamDrift: drift, nodes: data.fleet.nodes });
  return exitCode;
}
