/** `cpctl validate <dir>`: offline; every problem as `file: path: message`. */
import { ExitCode } from '../exit-codes';
import type { CommandContext } from '../context';
import { formatIssue } from '../files/file-issue';
import { readManifestDir } from '../files/manifest-dir';

export async function validateCommand(ctx: CommandContext, dir: string): Promise<ExitCode> {
  const { reporter: r } = ctx;
  const read = await readManifestDir(dir);
  const ok = read.issues.length === 0;
  const exitCode = ok ? ExitCode.Ok : ExitCode.InvalidFiles;
  r.result({
    command: 'validate',
    ok,
    exitCode,
    dir,
    manifests: ok ? read.manifests.map((m) => m.id) : [],
    documents: read.sources.length,
    agentFile: read.agentFile ?? null,
    issues: read.issues,
  });
  if (ok) {
    const agent = read.agentFile ? `, agent file ${read.agentFile}` : '';
    r.line(`${r.mark('ok')}${dir}: ${read.manifests.length} manifest(s) valid${agent}`);
  } else {
    for (const issue of read.issues) r.line(`${r.mark('bad')}${formatIssue(issue)}`);
    r.line(r.c.red(`${read.issues.length} problem(s) in ${dir}`));
  }
  return exitCode;
}
