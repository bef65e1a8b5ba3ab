/**
 * The command tree. `run` never exits the process and never touches process.*: it returns the
 * exit code, so main.ts stays a two-liner and the whole CLI can run in-process.
 */
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { agentAllowListCommand, ALLOW_LIST_ARGS } from './commands/agent.command';
import { cardDiffCommand, cardShowCommand } from './commands/card.command';
import { cardVerifyCommand } from './commands/card-verify.command';
import { exportCommand } from './commands/export.command';
import { gatewayDriftCommand } from './commands/gateway.command';
import { importCommand, type ImportOptions } from './commands/import.command';
import { catalogVerifyCommand, exportAiCatalogCommand } from './commands/catalog.command';
import { changeRequestDecideCommand, changeRequestsListCommand } from './commands/change-requests.command';
import { planCommand } from './commands/plan.command';
import { routeTestCommand } from './commands/route-test.command';
import { validateCommand } from './commands/validate.command';
import { DEFAULT_URL, type CommandContext, type GlobalOptions } from './context';
import { CpctlError, CpctlErrorCode } from './cpctl.errors';
import { ExitCode } from './exit-codes';
import { formatIssue } from './files/file-issue';
import { Reporter, type Io } from './output/reporter';

const VERSION = '0.1.0';

function revisionArg(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
}

function daysArg(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 400) throw new InvalidArgumentError('must be an integer from 1 to 400');
  return n;
}

function limitArg(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError('must be an integer from 1 to 1000');
  return n;
}

function accuracyArg(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('must be a number from 0 to 1');
  return n;
}

function reportError(reporter: Reporter, command: string, error: CpctlError): void {
  reporter.result({
    command,
    ok: false,
    exitCode: error.exitCode,
    error: { code: error.code, message: error.message, issues: error.issues },
  });
  reporter.problem(`${reporter.c.red('error:')} ${error.message}`);
  for (const i of error.issues)
    reporter.problem(`  ${i.file ? formatIssue({ file: i.file, path: i.path, message: i.message }) : `${i.path}: ${i.message}`}`);
}

export async function run(argv: readonly string[], io: Io): Promise<ExitCode> {
  const wantsJson = argv.includes('--json');
  let exitCode: ExitCode = ExitCode.Ok;
  let commandName = 'cpctl';

  const program = new Command('cpctl')
    .description('Manage capability manifests as files: validate, plan, apply, export, and gate the public agent card in CI.')
    .version(VERSION)
    .option('--json', 'print one JSON document on stdout (stable shape, see docs/cpctl.md)')
    .addOption(new Option('--url <url>', `control plane GraphQL endpoint (env CPCTL_URL, default ${DEFAULT_URL})`))
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void (wantsJson ? undefined : io.stderr.write(s)),
    });

  const action =
    <A extends unknown[]>(name: string, handler: (ctx: CommandContext, ...args: A) => Promise<ExitCode>) =>
    async (...args: unknown[]) => {
      commandName = name;
      const cmd = args[args.length - 1] as Command;
      const global = cmd.optsWithGlobals<GlobalOptions>();
      const ctx: CommandContext = { reporter: new Reporter(io, global.json === true), env: io.env, global };
      exitCode = await handler(ctx, ...(args.slice(0, -1) as A));
    };

  program
    .command('validate')
    .description('validate the manifest files of a directory offline; every problem as file: path: message')
    .argument('<dir>', 'directory of *.yaml / *.yml / *.json manifests (and optionally agent.yaml)')
    .action(action('validate', (ctx, dir: string) => validateCommand(ctx, dir)));

  for (const apply of [false, true]) {
    const command = program
      .command(apply ? 'apply' : 'plan')
      .description(
        apply
          ? 'show the plan, then apply it at the revision the plan was read at'
          : 'dry run: what applying the directory would change, with the public-card diff',
      )
      .argument('<dir>', 'manifest directory')
      .option('--agent <id>', "agent id (default: agent.yaml's id)")
      .addOption(
        new Option(
          '--expected-revision <n>',
          'plan/apply only if the registry is still at this revision (e.g. from a reviewed plan --json)',
        ).argParser(revisionArg),
      )
      .option(
        '--allow-unserved <ids...>',
        'publish these capabilities although some live node does not serve their handler yet (staged rollout, audited)',
      )
      .addOption(new Option('--impact-days <n>', 'the usage gate looks at callers of the last n days (default 30)').argParser(daysArg))
      .option('--accept-impact <ids...>', 'remove, narrow or hide these capabilities although callers of the window still use them');
    if (apply) {
      command.option(
        '--break-glass <reason>',
        'platform admins: apply changes the approval policy gates at once, without a second admin (audited and announced)',
      );
    }
    command.action(
      action(
        apply ? 'apply' : 'plan',
        (
          ctx,
          dir: string,
          opts: {
            agent?: string;
            expectedRevision?: number;
            allowUnserved?: string[];
            impactDays?: number;
            acceptImpact?: string[];
            breakGlass?: string;
          },
        ) =>
          planCommand(ctx, dir, {
            agent: opts.agent,
            apply,
            expectedRevision: opts.expectedRevision,
            allowUnserved: opts.allowUnserved,
            impactDays: opts.impactDays,
            acceptImpact: opts.acceptImpact,
            breakGlassReason: opts.breakGlass,
          }),
      ),
    );
  }

  const requests = program
    .command('change-requests')
    .description('change requests: gated plans held for a second admin (docs/approvals.md)');
  requests
    .command('list')
    .description('change requests of agents you may read, newest first')
    .option('--agent <id>', 'only this agent')
    .addOption(new Option('--status <status>', 'only this status').choices(['pending', 'applied', 'rejected', 'stale']))
    .option('--author <subject>', 'only requests by this author')
    .addOption(new Option('--limit <n>', 'at most n requests (default 50)').argParser(limitArg).default(50))
    .action(
      action('change-requests list', (ctx, opts: { agent?: string; status?: string; author?: string; limit: number }) =>
        changeRequestsListCommand(ctx, { agentId: opts.agent, status: opts.status, author: opts.author, limit: opts.limit }),
      ),
    );
  requests
    .command('approve')
    .description('approve a pending change request: the control plane applies its plan at its base revision (exit 6 when stale)')
    .argument('<id>', 'change request id')
    .option('--comment <text>', 'why (audited)')
    .action(
      action('change-requests approve', (ctx, id: string, opts: { comment?: string }) =>
        changeRequestDecideCommand(ctx, 'approve', id, opts.comment),
      ),
    );
  requests
    .command('reject')
    .description('reject a pending change request (the author may withdraw their own)')
    .argument('<id>', 'change request id')
    .requiredOption('--comment <text>', 'why (audited)')
    .action(
      action('change-requests reject', (ctx, id: string, opts: { comment: string }) =>
        changeRequestDecideCommand(ctx, 'reject', id, opts.comment),
      ),
    );

  program
    .command('agent')
    .description("an agent's settings")
    .command('allow-list')
    .description(
      'replace the private hosts, *.domains, IPs or CIDRs push webhooks (webhook) or upstream agents (upstream) may reach; a widening the approval policy gates files a change request (exit 20)',
    )
    .argument('<agent>', 'agent id')
    .addArgument(new Argument('<list>', 'which allow list').choices(Object.keys(ALLOW_LIST_ARGS)))
    .argument('[entries...]', 'the whole new list (none: empty it)')
    .option('--break-glass <reason>', 'platform admins: apply a gated widening at once, without a second admin (audited and announced)')
    .action(
      action('agent allow-list', (ctx, agent: string, list: string, entries: string[], opts: { breakGlass?: string }) =>
        agentAllowListCommand(ctx, agent, ALLOW_LIST_ARGS[list], entries, { breakGlassReason: opts.breakGlass }),
      ),
    );

  const card = program.command('card').description('the public agent card');
  card
    .command('diff')
    .description(
      'diff the public card (from files or the control plane) against a released card; non-zero on any change unless --approve, and on any leak',
    )
    .argument('[dir]', 'manifest directory with agent.yaml (or use --agent)')
    .requiredOption('--against <file>', 'the released public card (JSON)')
    .option('--agent <id>', 'fetch the current public card from the control plane instead of generating it from files')
    .option('--approve', 'accept the changes (leaks are never accepted)')
    .option(
      '--usage',
      "also ask the control plane who still calls what the directory's plan removes, narrows or hides (the usage gate; needs <dir>)",
    )
    .addOption(new Option('--impact-days <n>', 'with --usage: callers of the last n days (default 30)').argParser(daysArg))
    .option('--accept-impact <ids...>', 'with --usage: accept these capabilities although callers of the window still use them')
    .action(
      action(
        'card diff',
        (
          ctx,
          dir: string | undefined,
          opts: { against: string; agent?: string; approve?: boolean; usage?: boolean; impactDays?: number; acceptImpact?: string[] },
        ) => cardDiffCommand(ctx, dir, opts),
      ),
    );
  card
    .command('show')
    .description('print the public card (from files or the control plane), e.g. to record a release')
    .argument('[dir]', 'manifest directory with agent.yaml (or use --agent)')
    .option('--agent <id>', 'fetch it from the control plane')
    .option('--out <file>', 'write it to a file instead of stdout')
    .action(action('card show', (ctx, dir: string | undefined, opts: { agent?: string; out?: string }) => cardShowCommand(ctx, dir, opts)));

  card
    .command('verify')
    .description("fetch an agent card and verify its signatures (A2A §8.4) against a JWKS you name; the card's own jku is never followed")
    .argument('<url>', 'the card URL (a base URL means its /.well-known/agent-card.json)')
    .option('--jwks <url|file>', 'the JWKS to verify with (env CPCTL_JWKS), e.g. the control plane /.well-known/jwks.json')
    .action(action('card verify', (ctx, url: string, opts: { jwks?: string }) => cardVerifyCommand(ctx, url, opts)));

  program
    .command('route')
    .description('routing checks')
    .command('test')
    .description(
      'offline: route the labelled messages of <dir>/routing-tests.yaml; non-zero on any wrong route or accuracy below the minimum',
    )
    .argument('<dir>', 'manifest directory holding routing-tests.yaml')
    .addOption(new Option('--min-accuracy <x>', "override the file's min_accuracy (0..1)").argParser(accuracyArg))
    .action(action('route test', (ctx, dir: string, opts: { minAccuracy?: number }) => routeTestCommand(ctx, dir, opts)));

  program
    .command('export')
    .description("write an agent's registry out as files that apply takes back unchanged")
    .option('--agent <id>', 'agent id')
    .option('--ai-catalog', "write the control plane's signed AI Catalog (as CPCTL_TOKEN's caller sees it) to the file <dir>")
    .argument('<dir>', 'directory to write (created if missing), or the file with --ai-catalog')
    .option('--replace', 'delete the manifest files already in <dir> first')
    .action(
      action('export', (ctx, dir: string, opts: { agent?: string; replace?: boolean; aiCatalog?: boolean }) => {
        if (opts.aiCatalog) return exportAiCatalogCommand(ctx, dir);
        if (!opts.agent) throw new CpctlError(CpctlErrorCode.Usage, "required option '--agent <id>' not specified (or --ai-catalog)");
        return exportCommand(ctx, dir, { agent: opts.agent, replace: opts.replace });
      }),
    );

  program
    .command('catalog')
    .description('the AI Catalog (/.well-known/ai-catalog.json)')
    .command('verify')
    .description("verify an AI Catalog: the spec's MUST rules, its signature and every linked card's, against a JWKS you name")
    .argument('<url>', 'the catalog URL (a base URL means its /.well-known/ai-catalog.json)')
    .option('--jwks <url|file>', 'the JWKS to verify with (env CPCTL_JWKS), e.g. the control plane /.well-known/jwks.json')
    .action(action('catalog verify', (ctx, url: string, opts: { jwks?: string }) => catalogVerifyCommand(ctx, url, opts)));

  program
    .command('import')
    .description(
      "write manifests from an existing A2A agent's card (or every A2A card of an AI Catalog): each skill a preview, extended capability forwarded to that agent",
    )
    .requiredOption('--from-card <url>', 'the agent card URL (a base URL means its /.well-known/agent-card.json), or an AI Catalog URL')
    .argument('<dir>', 'directory to write one <capability-id>.yaml per skill into (created if missing)')
    .option('--owner <team>', 'the team slug that owns the imported capabilities (required)')
    .option('--allow-private', 'allow private, loopback and other non-public addresses (local development)')
    .option('--jwks <url|file>', 'the JWKS a signed card or catalog is verified with (env CPCTL_JWKS)')
    .option('--no-verify', 'import a signed card or catalog without verifying its signature')
    .option('--replace', 'overwrite manifest files of the same names already in <dir>')
    .action(
      action('import', (ctx, dir: string, opts: ImportOptions & { fromCard: string }) => importCommand(ctx, opts.fromCard, dir, opts)),
    );

  program
    .command('gateway')
    .description('agents served through the node as a gateway (docs/gateway.md)')
    .command('drift')
    .description("each upstream agent's own card against the registry, as the live gateway nodes last fetched it; exit 19 on drift")
    .argument('<agent>', 'agent id')
    .action(action('gateway drift', (ctx, agent: string) => gatewayDriftCommand(ctx, agent)));

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    const reporter = new Reporter(io, wantsJson);
    if (error instanceof CommanderError) {
      // --help and --version end here too, successfully.
      if (error.exitCode === 0) return ExitCode.Ok;
      reporter.result({
        command: commandName,
        ok: false,
        exitCode: ExitCode.Usage,
        error: { code: CpctlErrorCode.Usage, message: error.message, issues: [] },
      });
      return ExitCode.Usage;
    }
    if (error instanceof CpctlError) {
      reportError(reporter, commandName, error);
      return error.exitCode;
    }
    const e = error as NodeJS.ErrnoException;
    const wrapped = new CpctlError(CpctlErrorCode.Io, e.code ? `${e.code}: ${e.message}` : `unexpected error: ${e.stack ?? e.message}`);
    reportError(reporter, commandName, wrapped);
    return wrapped.exitCode;
  }
}
