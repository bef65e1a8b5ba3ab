/**
 * `cpctl card diff --against <released.json> [dir | --agent id]`: the CI gate of the seed ("diff
 * the public card against the previous release and require review for any change"), and
 * `cpctl card show [dir | --agent id]`, which prints the card to release.
 */
import { writeFile } from 'node:fs/promises';
import { checkAgentCard, findLeaks, serializeCard } from '@cp/capabilities';
import { fetchGeneratedCard } from '../api/registry-api';
import { cardFromFiles, type GeneratedCard } from '../card/card-from-files';
import { compareCards } from '../card/compare-cards';
import { readReleasedCard } from '../card/released-card';
import { clientFor, type CommandContext } from '../context';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';
import { ExitCode } from '../exit-codes';
import { renderChanges, renderLeaks, summary } from '../output/render-card-diff';

export interface CardSourceOptions {
  agent?: string;
}

type Source = { dir: string } | { agentId: string; url: string };

async function generate(
  ctx: CommandContext,
  dir: string | undefined,
  options: CardSourceOptions,
): Promise<GeneratedCard & { source: Source }> {
  if (dir && options.agent) throw new CpctlError(CpctlErrorCode.Usage, 'give either a directory or --agent, not both');
  if (dir) return { ...(await cardFromFiles(dir)), source: { dir } };
  if (!options.agent)
    throw new CpctlError(CpctlErrorCode.Usage, 'give a manifest directory or --agent <id> to fetch the card from the control plane');
  const client = clientFor(ctx);
  const agentId = options.agent;
  const fetched = await ctx.reporter.progress(`fetching ${agentId}'s public card from ${client.url}`, () =>
    fetchGeneratedCard(client, agentId),
  );
  return { ...fetched, source: { agentId, url: client.url } };
}

const describeSource = (s: Source) => ('dir' in s ? s.dir : `agent ${s.agentId} at ${s.url}`);

export async function cardDiffCommand(
  ctx: CommandContext,
  dir: string | undefined,
  options: CardSourceOptions & { against: string; approve?: boolean },
): Promise<ExitCode> {
  const r = ctx.reporter;
  const released = await readReleasedCard(options.against);
  const { card, manifests, source } = await generate(ctx, dir, options);
  const changes = compareCards(released, card);
  const leaks = findLeaks(card, manifests);
  const cardIssues = checkAgentCard(card);
  const breaking = changes.some((c) => c.breaking);
  const approved = options.approve === true;
  const exitCode =
    leaks.length > 0
      ? ExitCode.Leak
      : cardIssues.length > 0
        ? ExitCode.InvalidFiles
        : changes.length > 0 && !approved
          ? ExitCode.UnapprovedChange
          : ExitCode.Ok;

  r.result({
    command: 'card diff',
    ok: exitCode === ExitCode.Ok,
    exitCode,
    source,
    against: options.against,
    approved,
    changed: changes.length > 0,
    breaking,
    changes,
    leaks,
    cardIssues,
    card: { version: card.version, etag: serializeCard(card).etag },
  });

  r.line(`Public card of ${describeSource(source)} against ${options.against}: ${summary(changes)}`);
  renderChanges(r, changes);
  if (cardIssues.length > 0) {
    r.line(r.c.red('The generated card is not a valid A2A card:'));
    for (const i of cardIssues) r.line(`  ${i.path}: ${i.message}`);
  }
  if (leaks.length > 0) {
    r.line(r.c.red(`${leaks.length} leak(s) of non-public text into the public card (never approvable):`));
    renderLeaks(r, leaks);
  }
  if (exitCode === ExitCode.UnapprovedChange) {
    r.line(
      r.c.yellow(
        `The public card changed${breaking ? ' (BREAKING)' : ''}: review it, then re-run with --approve and release the new card.`,
      ),
    );
  } else if (exitCode === ExitCode.Ok && changes.length > 0) {
    r.line(`${r.mark('ok')}changes approved`);
  } else if (exitCode === ExitCode.Ok) {
    r.line(`${r.mark('ok')}the public card is unchanged`);
  }
  return exitCode;
}

export async function cardShowCommand(
  ctx: CommandContext,
  dir: string | undefined,
  options: CardSourceOptions & { out?: string },
): Promise<ExitCode> {
  const { card, source } = await generate(ctx, dir, options);
  const { body, etag } = serializeCard(card);
  if (options.out) {
    await writeFile(options.out, `${JSON.stringify(card, null, 2)}\n`);
    ctx.reporter.line(
      `${ctx.reporter.mark('ok')}wrote the public card of ${describeSource(source)} to ${options.out} (version ${card.version})`,
    );
  } else {
    ctx.reporter.line(JSON.stringify(card, null, 2));
  }
  ctx.reporter.result({
    command: 'card show',
    ok: true,
    exitCode: ExitCode.Ok,
    source,
    version: card.version,
    etag,
    card: JSON.parse(body) as unknown,
    out: options.out ?? null,
  });
  return ExitCode.Ok;
}
