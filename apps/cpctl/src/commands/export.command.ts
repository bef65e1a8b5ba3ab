/** `cpctl export --agent <id> <dir>`: the registry as files that `apply` takes back unchanged. */
import { fetchAgent, fetchManifests } from '../api/registry-api';
import { clientFor, type CommandContext } from '../context';
import { ExitCode } from '../exit-codes';
import { writeManifestDir } from '../files/write-dir';

export async function exportCommand(ctx: CommandContext, dir: string, options: { agent: string; replace?: boolean }): Promise<ExitCode> {
  const r = ctx.reporter;
  const client = clientFor(ctx);
  const { agent, manifests } = await r.progress(`exporting agent ${options.agent} from ${client.url}`, async () => {
    const [agent, manifests] = await Promise.all([fetchAgent(client, options.agent), fetchManifests(client, options.agent)]);
    return { agent, manifests };
  });
  const files = await writeManifestDir(dir, { agentId: agent.id, agent: agent.base, manifests }, options.replace === true);
  r.line(
    `${r.mark('ok')}exported agent ${agent.id} at revision ${agent.revision}: ${manifests.length} manifest(s) and agent.yaml to ${dir}`,
  );
  r.result({
    command: 'export',
    ok: true,
    exitCode: ExitCode.Ok,
    agentId: agent.id,
    revision: agent.revision,
    dir,
    manifests: manifests.map((m) => m.id),
    files,
  });
  return ExitCode.Ok;
}
