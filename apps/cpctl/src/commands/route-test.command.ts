/**
 * `cpctl route test <dir>`: offline. Routes the labelled messages of `<dir>/routing-tests.yaml`
 * through the router index the directory's manifests produce (ADR 0092) and fails on any wrong
 * route or on accuracy below the file's min_accuracy.
 */
import { access } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseRoutingTests, routingTestSummary, runRoutingTests, type RegistrySnapshot, type RoutingTestSuite } from '@cp/capabilities';
import type { CommandContext } from '../context';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';
import { ExitCode } from '../exit-codes';
import { loadManifestDir, ROUTING_TEST_FILES } from '../files/manifest-dir';
import { readDocument } from '../files/read-document';

async function findTestsFile(dir: string): Promise<string | undefined> {
  for (const name of ROUTING_TEST_FILES) {
    const file = join(dir, name);
    try {
      await access(file);
      return file;
    } catch {
      // try the next spelling
    }
  }
  return undefined;
}

/** The directory's routing tests (raw document and parsed suite), or undefined when it has none. */
export async function readRoutingTests(
  dir: string,
  ids: ReadonlySet<string>,
): Promise<{ file: string; raw: unknown; suite: RoutingTestSuite } | undefined> {
  const file = await findTestsFile(dir);
  if (!file) return undefined;
  const doc = await readDocument(file);
  if (!doc.ok) throw new CpctlError(CpctlErrorCode.InvalidFiles, `${file}: cannot be read`, doc.issues);
  const parsed = parseRoutingTests(doc.value, ids);
  if (!parsed.ok)
    throw new CpctlError(
      CpctlErrorCode.InvalidFiles,
      `${file}: ${parsed.errors.length} problem(s)`,
      parsed.errors.map((e) => ({ file, ...e })),
    );
  return { file, raw: doc.value, suite: parsed.suite };
}

export async function routeTestCommand(ctx: CommandContext, dir: string, opts: { minAccuracy?: number } = {}): Promise<ExitCode> {
  const { reporter: r } = ctx;
  const read = await loadManifestDir(dir);
  const tests = await readRoutingTests(dir, new Set(read.manifests.map((m) => m.id)));
  if (!tests) throw new CpctlError(CpctlErrorCode.Usage, `${dir} has no ${ROUTING_TEST_FILES.join(' / ')}: nothing to test`);
  const suite = opts.minAccuracy === undefined ? tests.suite : { ...tests.suite, minAccuracy: opts.minAccuracy };
  const snapshot: RegistrySnapshot = {
    agentId: read.agent?.id ?? basename(resolve(dir)),
    revision: 0,
    agent: read.agent?.base ?? {
      name: '',
      description: '',
      version: '0',
      supportedInterfaces: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
      protocol: { streaming: false, pushNotifications: false, extendedAgentCard: false },
      extensions: [],
    },
    manifests: read.manifests,
    previewTenants: read.agent?.previewTenants ?? [],
  };
  const report = runRoutingTests(snapshot, suite);
  const exitCode = report.passed ? ExitCode.Ok : ExitCode.RoutingTestFailed;
  const label = (o: (typeof report.results)[number]['outcome']) =>
    o.kind === 'routed' ? o.id : o.kind === 'clarify' ? 'clarify' : `failed: ${o.reason}`;
  r.result({
    command: 'route test',
    ok: report.passed,
    exitCode,
    dir,
    ...routingTestSummary(report),
    misses: report.results
      .filter((x) => !x.correct)
      .map((x) => ({ index: x.index, text: x.text, expect: x.expect, got: label(x.outcome), wrong: x.wrong })),
  });
  for (const x of report.results.filter((y) => !y.correct))
    r.line(`${r.mark(x.wrong ? 'bad' : 'warn')}tests[${x.index}] expected ${x.expect}, got ${label(x.outcome)}: ${JSON.stringify(x.text)}`);
  const pct = (n: number) => `${(100 * n).toFixed(1)}%`;
  r.line(
    `${report.passed ? r.c.green('passed') : r.c.red('failed')}: ${report.correct}/${report.total} correct (${pct(report.accuracy)}, minimum ${pct(report.minAccuracy)}), ${report.wrongRoutes} wrong route(s), ${report.falseClarifications} false clarification(s), ${report.correctClarifications} correct clarification(s)`,
  );
  return exitCode;
}
