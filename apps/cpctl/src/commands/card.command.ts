/**
 * `cpctl card diff --against <released.json> [dir | --agent id]`: the CI gate of the seed ("diff
 * the public card against the previous release and require review for any change"), and
 * `cpctl card show [dir | --agent id]`, which prints the card to release.
 */
import { writeFile } from 'node:fs/promises';
import { checkAgentCard, findLeaks, serializeCard } from '@cp/capabilities';
import { toManifestDocument } from '@cp/capabilities';
import { applyManifests, fetchAgent, fetchGeneratedCard, type PlanImpact } from '../api/registry-api';
import { loadManifestDir } from '../files/manifest-dir';
import { impactAdvice, renderImpact, unacceptedImpact } from '../output/render-impact';
import { DEFAULT_IMPACT_DAYS, resolveAgentId } from './plan.command';
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

export interface UsageGateOptions {
  usage?: boolean;
  impactDays?: number;
  acceptImpact?: string[];
}

/** The usage gate for a directory: the control plane's dry-run plan of it, impact only. */
async function usageImpact(ctx: CommandContext, dir: string, days: number): Promise<PlanImpact[]> {
  const read = await loadManifestDir(dir);
  const agentId = resolveAgentId(undefined, read.agent?.id);
  const client = clientFor(ctx);
  const remote = await ctx.reporter.progress(`reading agent ${agentId} from ${client.url}`, () => fetchAgent(client, agentId));
  const planned = await ctx.reporter.progress(`asking who still calls what ${dir} changes`, () =>
    applyManifests(client, agentId, read.manifests.map(toManifestDocument), {
      dryRun: true,
      expectedRevision: remote.revision,
      impactDays: days,
    }),
  );
  return planned.plan.impact;
}

export async function cardDiffCommand(
  ctx: CommandContext,
  dir: string | undefined,
  options: CardSourceOptions & UsageGateOptions & { against: string; approve?: boolean },
): Promise<ExitCode> {
  const r = ctx.reporter;
  if (options.usage && !dir) throw new CpctlError(CpctlErrorCode.Usage, '--usage needs a manifest directory (it plans the directory)');
  if (!options.usage && (options.acceptImpact !== undefined || options.impactDays !== undefined))
    throw new CpctlError(CpctlErrorCode.Usage, '--accept-impact and --impact-days go with --usage');
  const released = await readReleasedCard(options.against);
  const { card, manifests, source } = await generate(ctx, dir, options);
  const impactDays = options.impactDays ?? DEFAULT_IMPACT_DAYS;
  const accepted = options.acceptImpact ?? [];
  const impact = options.usage && dir ? await usageImpact(ctx, dir, impactDays) : null;
  const blocked = impact ? unacceptedImpact(impact, accepted) : [];
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
          : blocked.length > 0
            ? ExitCode.UnacceptedImpact
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
    ...(impact ? { impact, impactDays, acceptedImpact: accepted, unacceptedImpact: [...new Set(blocked.map((c) => c.capabilityId))] } : {}),
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
  if (impact) renderImpact(r, impact, impactDays, accepted);
  if (blocked.length > 0) impactAdvice(r, blocked);
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
