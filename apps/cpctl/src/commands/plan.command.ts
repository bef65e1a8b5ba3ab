/**
 * `cpctl plan <dir>` and `cpctl apply <dir>`: the control plane plans (dry run) what applying the
 * directory changes; apply then applies exactly that, guarded by the revision read before the
 * plan, so a registry changed meanwhile is refused rather than overwritten.
 */
import { canonicalJson, toManifestDocument, type AgentBase } from '@cp/capabilities';
import { applyManifests, fetchAgent, routeTest, type GatedChange, type RouteTestSummary, type ServerPlan } from '../api/registry-api';
import { clientFor, type CommandContext } from '../context';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';
import { ExitCode } from '../exit-codes';
import { loadManifestDir, locate, mentionOf, type DocumentSource } from '../files/manifest-dir';
import { renderChanges, renderLeaks, summary } from '../output/render-card-diff';
import { impactAdvice, renderImpact, unacceptedImpact } from '../output/render-impact';
import type { Reporter } from '../output/reporter';
import { readRoutingTests } from './route-test.command';

export function resolveAgentId(option: string | undefined, fromFile: string | undefined): string {
  if (option && fromFile && option !== fromFile) {
    throw new CpctlError(CpctlErrorCode.Usage, `--agent ${option} does not match agent.yaml's id "${fromFile}": which agent did you mean?`);
  }
  const id = option ?? fromFile;
  if (!id) throw new CpctlError(CpctlErrorCode.Usage, 'which agent? pass --agent <id> or set id in agent.yaml');
  return id;
}

const hasChanges = (p: ServerPlan) => p.added.length + p.changed.length + p.deprecated.length + p.removed.length > 0;

/** Card-base fields where agent.yaml and the control plane disagree (apply changes manifests only). */
function agentDrift(local: AgentBase | undefined, remote: AgentBase): string[] {
  if (!local) return [];
  const keys = [...new Set([...Object.keys(local), ...Object.keys(remote)])] as (keyof AgentBase)[];
  return keys.filter((k) => canonicalJson(local[k] ?? null) !== canonicalJson(remote[k] ?? null)).sort();
}

function renderPlan(r: Reporter, plan: ServerPlan): void {
  const section = (title: string, ids: string[], paint: (s: string) => string, sign: string) => {
    if (ids.length === 0) return;
    r.line(`${title}:`);
    for (const id of ids) r.line(`  ${paint(sign)} ${id}`);
  };
  section('Added', plan.added, r.c.green, '+');
  if (plan.changed.length > 0) {
    r.line('Changed:');
    for (const c of plan.changed) r.line(`  ${r.c.yellow('~')} ${c.id} (${c.fields.join(', ')})`);
  }
  section('Deprecated', plan.deprecated, r.c.yellow, '!');
  section('Removed', plan.removed, r.c.red, '-');
  r.line(`Unchanged: ${plan.unchanged.length}`);
  r.line(`Public card: ${summary(plan.publicCardDiff)}`);
  if (plan.publicCardDiff.length > 0) renderChanges(r, plan.publicCardDiff);
  if (plan.leaks.length > 0) {
    r.line(r.c.red('Leaks into the public card:'));
    renderLeaks(r, plan.leaks);
  }
}

function renderRouting(r: Reporter, t: RouteTestSummary): void {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  r.line(
    `Routing tests: ${t.correct}/${t.total} correct (${pct(t.accuracy)}), ${t.wrongRoutes} wrong route(s)${t.passed ? '' : ` ${r.c.red('(cpctl route test would fail)')}`}`,
  );
  if (t.changes.length === 0) r.line('Route changes: none');
  else {
    r.line('Route changes:');
    for (const c of t.changes)
      r.line(`  ${r.c.yellow('~')} tests[${c.index}] ${c.before} → ${c.after} (expected ${c.expect}): ${JSON.stringify(c.text)}`);
  }
}

/** Server issues say `$[i]…` of the list sent: point them back at the files. */
function inFiles(error: CpctlError, sources: readonly DocumentSource[]): CpctlError {
  const issues = error.issues.map((i) =>
    /^\$\[\d+\]/.test(i.path) ? { ...locate(i.path, sources), message: mentionOf(i.message, sources) } : i,
  );
  return new CpctlError(error.code, error.message, issues);
}

function stale(agentId: string, revision: number, error: CpctlError): CpctlError {
  return new CpctlError(
    CpctlErrorCode.StaleRevision,
    `agent ${agentId} changed since the plan was read at revision ${revision} (${error.message}): nothing was applied; run plan again and review the new plan`,
  );
}

export interface PlanOptions {
  agent?: string;
  apply: boolean;
  /** Apply only if the registry is still at this revision (e.g. the one a reviewed `plan --json` printed). */
  expectedRevision?: number;
  /** Capabilities staged although some live node lacks their handler (issue 14). */
  allowUnserved?: string[];
  /** The usage gate's window: callers of the last impactDays days (default 30). */
  impactDays?: number;
  /** Capabilities whose removal, narrowing or hiding is accepted although callers still use them. */
  acceptImpact?: string[];
  /** Platform admins: apply gated changes at once, with this reason (break-glass, ADR 0300). */
  breakGlassReason?: string;
}

export const DEFAULT_IMPACT_DAYS = 30;

export async function planCommand(ctx: CommandContext, dir: string, options: PlanOptions): Promise<ExitCode> {
  const r = ctx.reporter;
  const command = options.apply ? 'apply' : 'plan';
  const read = await loadManifestDir(dir);
  const agentId = resolveAgentId(options.agent, read.agent?.id);
  const client = clientFor(ctx);
  const documents = read.manifests.map(toManifestDocument);
  const impactDays = options.impactDays ?? DEFAULT_IMPACT_DAYS;
  const accepted = options.acceptImpact ?? [];

  const remote = await r.progress(`reading agent ${agentId} from ${client.url}`, () => fetchAgent(client, agentId));
  const planAt = options.expectedRevision ?? remote.revision;
  let planned;
  try {
    planned = await r.progress(`planning ${documents.length} manifest(s)`, () =>
      applyManifests(client, agentId, documents, {
        dryRun: true,
        expectedRevision: planAt,
        allowUnserved: options.allowUnserved,
        impactDays,
      }),
    );
  } catch (error) {
    if (error instanceof CpctlError && error.code === CpctlErrorCode.StaleRevision) throw stale(agentId, planAt, error);
    throw error instanceof CpctlError ? inFiles(error, read.sources) : error;
  }
  const { plan } = planned;
  const drift = agentDrift(read.agent?.base, remote.base);

  r.line(`Plan for agent ${agentId} at revision ${planned.revision} (${dir}):`);
  renderPlan(r, plan);
  renderImpact(r, plan.impact, impactDays, accepted);
  renderApproval(r, planned.approvalRequired);
  const blocked = unacceptedImpact(plan.impact, accepted);
  if (drift.length > 0) {
    r.line(r.c.yellow(`Note: agent.yaml differs from the control plane's agent in ${drift.join(', ')}; cpctl applies manifests only.`));
  }
  // Labelled messages (routing-tests.yaml) whose route the change would move: informative here,
  // `cpctl route test` is the gate.
  let routing: RouteTestSummary | null = null;
  const tests = await readRoutingTests(dir, new Set(read.manifests.map((m) => m.id)));
  if (tests) {
    routing = await r.progress(`routing ${tests.suite.tests.length} labelled message(s)`, () =>
      routeTest(client, agentId, documents, tests.raw),
    );
    renderRouting(r, routing);
  }
  const base = {
    command,
    agentId,
    dir,
    revision: planned.revision,
    plan,
    agentDrift: drift,
    routing,
    impactDays,
    acceptedImpact: accepted,
    unacceptedImpact: [...new Set(blocked.map((c) => c.capabilityId))],
  };
  if (plan.leaks.length > 0) {
    r.problem(r.c.red(`The public card would show text of non-public skills: ${options.apply ? 'nothing applied' : 'apply will refuse'}.`));
    r.result({ ...base, ok: false, exitCode: ExitCode.Leak, applied: false, appliedRevision: null });
    return ExitCode.Leak;
  }
  if (blocked.length > 0) {
    impactAdvice(r, blocked);
    r.result({ ...base, ok: false, exitCode: ExitCode.UnacceptedImpact, applied: false, appliedRevision: null });
    return ExitCode.UnacceptedImpact;
  }
  if (!options.apply || !hasChanges(plan)) {
    if (options.apply) r.line(`${r.mark('ok')}nothing to apply: the registry already matches ${dir}`);
    r.result({ ...base, ok: true, exitCode: ExitCode.Ok, applied: false, appliedRevision: null });
    return ExitCode.Ok;
  }

  // The revision the plan was computed against: apply exactly that plan, or nothing.
  const revision = planned.revision;
  let applied;
  try {
    applied = await r.progress(`applying at revision ${revision}`, () =>
      applyManifests(client, agentId, documents, {
        dryRun: false,
        expectedRevision: revision,
        allowUnserved: options.allowUnserved,
        breakGlassReason: options.breakGlassReason,
      }),
    );
  } catch (error) {
    if (error instanceof CpctlError && error.code === CpctlErrorCode.StaleRevision) throw stale(agentId, revision, error);
    throw error instanceof CpctlError ? inFiles(error, read.sources) : error;
  }
  const request = applied.changeRequest;
  if (request && request.status === 'pending') {
    r.problem(
      r.c.yellow(
        `Nothing applied: change request ${request.id} holds this plan at revision ${request.baseRevision} for a second admin (cpctl change-requests approve ${request.id}).`,
      ),
    );
    r.result({ ...base, ok: false, exitCode: ExitCode.ChangeRequestFiled, applied: false, appliedRevision: null, changeRequest: request });
    return ExitCode.ChangeRequestFiled;
  }
  r.line(
    `${r.mark('ok')}applied${applied.breakGlass ? ' (break-glass: audited and announced)' : ''}: agent ${agentId} is now at revision ${applied.revision}`,
  );
  r.result({ ...base, ok: true, exitCode: ExitCode.Ok, applied: true, appliedRevision: applied.revision, changeRequest: request });
  return ExitCode.Ok;
}

function renderApproval(r: Reporter, gated: readonly GatedChange[]): void {
  if (gated.length === 0) return;
  r.line('Needs a second admin (approval policy):');
  for (const c of gated) r.line(`  ${r.c.yellow('?')} ${c.capabilityId}: ${c.kind} (${c.detail})`);
}
