/**
 * cpctl against a running control plane (booted here on an ephemeral port, its own database):
 * export, plan, apply, stale revision, bad token, unreachable URL, card diff --agent, --json.
 */
import { readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import YAML from 'yaml';
import { mintAdminToken } from '@cp/auth';
import { toManifestDocument } from '@cp/capabilities';
import { given } from '@cp/capabilities/testing';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { cpctl, Workspace } from '../support/cpctl-harness';

const AGENT = 'finance-agent';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface PlanJson {
  command: string;
  ok: boolean;
  exitCode: number;
  revision: number;
  applied: boolean;
  appliedRevision: number | null;
  plan: {
    added: string[];
    changed: { id: string; fields: string[] }[];
    deprecated: string[];
    removed: string[];
    unchanged: string[];
    publicCardDiff: { kind: string; breaking: boolean }[];
    breaking: boolean;
    leaks: unknown[];
  };
}

describe('cpctl against the control plane', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let env: Record<string, string>;
  const ws = new Workspace();

  const revision = async () => (await app.get(PrismaService).agent.findUniqueOrThrow({ where: { id: AGENT } })).revision;
  const exported = async (name: string) => {
    const dir = ws.path(name);
    const run = await cpctl(['export', '--agent', AGENT, dir], env);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    return dir;
  };
  const editYaml = (file: string, edit: (doc: Record<string, unknown>) => void) => {
    const doc = YAML.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    edit(doc);
    writeFileSync(file, YAML.stringify(doc));
  };

  beforeAll(async () => {
    db = await createTestDatabase('cpctl');
    const config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `test:cpctl:${process.pid}:`,
      GRAPHQL_SCHEMA_FILE: join(tmpdir(), `cpctl-schema-${process.pid}.graphql`),
    });
    const booted = await bootApp(AppModule, config);
    app = booted.app;
    await seedWhenEmpty(app.get(PrismaService));
    env = { CPCTL_URL: `${booted.url}/graphql`, CPCTL_TOKEN: mintAdminToken(config, 'ci@finance', ['platform-admin']) };
  });
  afterAll(async () => {
    ws.remove();
    await app?.close();
    await db?.drop();
  });

  it('export writes agent.yaml and one file per manifest; plan and apply of it are no-ops', async () => {
    const before = await revision();
    const dir = await exported('export-1');
    expect(readdirSync(dir).sort()).toEqual(['agent.yaml', 'invoice-lookup.yaml', 'reconcile-invoice.yaml']);
    expect((await cpctl(['validate', dir])).code).toBe(0);
    // agent.yaml carries the id, so --agent is optional.
    const plan = await cpctl(['plan', dir, '--json'], env);
    expect(plan.code).toBe(0);
    expect(plan.json<PlanJson & { agentDrift: string[] }>()).toMatchObject({
      command: 'plan',
      ok: true,
      exitCode: 0,
      revision: before,
      applied: false,
      agentDrift: [],
      plan: {
        added: [],
        changed: [],
        deprecated: [],
        removed: [],
        unchanged: ['invoice-lookup', 'reconcile-invoice'],
        publicCardDiff: [],
        breaking: false,
        leaks: [],
      },
    });
    const apply = await cpctl(['apply', dir, '--agent', AGENT], env);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('nothing to apply');
    expect(await revision()).toBe(before);
  });

  it('an agent serving 0.3 with a webhook allow-list exports both settings; plan of the export is a no-op, an edit of them is drift', async () => {
    const prisma = app.get(PrismaService);
    await prisma.agent.update({ where: { id: AGENT }, data: { protocolVersions: ['1.0', '0.3'], webhookAllow: ['10.0.0.0/8'] } });
    try {
      const dir = await exported('export-v03');
      const agent = YAML.parse(readFileSync(join(dir, 'agent.yaml'), 'utf8')) as { protocol: Record<string, unknown> };
      expect(agent.protocol).toMatchObject({ versions: ['1.0', '0.3'], webhookAllow: ['10.0.0.0/8'] });
      const plan = await cpctl(['plan', dir, '--json'], env);
      expect(plan.json<PlanJson & { agentDrift: string[] }>()).toMatchObject({ exitCode: 0, agentDrift: [], plan: { publicCardDiff: [] } });
      editYaml(join(dir, 'agent.yaml'), (doc) => {
        (doc.protocol as Record<string, unknown>).versions = ['1.0'];
      });
      expect((await cpctl(['plan', dir, '--json'], env)).json<{ agentDrift: string[] }>().agentDrift).toEqual(['protocol']);
      editYaml(join(dir, 'agent.yaml'), (doc) => {
        (doc.protocol as Record<string, unknown>).versions = ['0.3', '2.0'];
      });
      const invalid = await cpctl(['validate', dir], env);
      expect(invalid.code).toBe(1);
      expect(invalid.stdout).toContain('$.protocol.versions[1]: must be "1.0" or "0.3"');
    } finally {
      await prisma.agent.update({ where: { id: AGENT }, data: { protocolVersions: ['1.0'], webhookAllow: [] } });
    }
  });

  it('plan shows added, changed fields and the public-card diff without writing; apply writes it at the planned revision', async () => {
    const dir = await exported('round-trip');
    editYaml(
      join(dir, 'invoice-lookup.yaml'),
      (d) => ((d.skill as Record<string, unknown>).description = 'Finds an invoice by number and returns its status.'),
    );
    const added = given.manifest({
      id: 'statement-export',
      visibility: 'public',
      owner: 'finance-agents-team',
      handler: 'statements.v1.export',
      skill: { name: 'Export a statement', description: 'Exports a customer statement as PDF.', tags: ['finance'] },
    });
    writeFileSync(join(dir, 'statement-export.yaml'), YAML.stringify(toManifestDocument(added)));
    const before = await revision();

    const plan = await cpctl(['plan', dir], env);
    expect({ code: plan.code, stderr: plan.stderr }).toEqual({ code: 0, stderr: '' });
    expect(plan.stdout).toContain('Added:\n  + statement-export');
    expect(plan.stdout).toContain('Changed:\n  ~ invoice-lookup (skill.description)');
    expect(plan.stdout).toMatch(/description-changed\s+invoice-lookup description changed/);
    expect(plan.stdout).toMatch(/skill-added\s+skill statement-export/);
    expect(await revision()).toBe(before);

    const apply = await cpctl(['apply', dir, '--json'], env);
    expect(apply.code).toBe(0);
    const result = apply.json<PlanJson>();
    expect(result).toMatchObject({
      command: 'apply',
      ok: true,
      applied: true,
      revision: before,
      appliedRevision: before + 1,
      plan: { added: ['statement-export'] },
    });
    expect(await revision()).toBe(before + 1);

    // Round trip: what was applied exports back to the same files.
    const again = await exported('round-trip-2');
    for (const f of readdirSync(dir)) expect(readFileSync(join(again, f), 'utf8')).toBe(readFileSync(join(dir, f), 'utf8'));
    expect((await cpctl(['plan', again, '--json'], env)).json<PlanJson>().plan.unchanged).toHaveLength(3);
  });

  it('refuses to remove a capability that was never deprecated (exit 5), then removes it after deprecation', async () => {
    const dir = await exported('remove');
    unlinkSync(join(dir, 'reconcile-invoice.yaml'));
    const refused = await cpctl(['apply', dir], env);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('reconcile-invoice: a ga capability cannot be removed by omitting it: deprecate it first');

    const deprecate = await exported('deprecate');
    editYaml(join(deprecate, 'reconcile-invoice.yaml'), (d) =>
      Object.assign(d, { state: 'deprecated', deprecation_reason: 'Reconciliation moves to the ERP.' }),
    );
    const deprecated = await cpctl(['apply', deprecate, '--json'], env);
    expect(deprecated.code).toBe(0);
    expect(deprecated.json<PlanJson>().plan.deprecated).toEqual(['reconcile-invoice']);

    unlinkSync(join(deprecate, 'reconcile-invoice.yaml'));
    const removed = await cpctl(['apply', deprecate, '--json'], env);
    expect(removed.code).toBe(0);
    expect(removed.json<PlanJson>().plan.removed).toEqual(['reconcile-invoice']);
    // The tombstone is exported too, and re-applying it changes nothing.
    const after = await exported('after-removal');
    expect(YAML.parse(readFileSync(join(after, 'reconcile-invoice.yaml'), 'utf8'))).toMatchObject({ state: 'removed' });
    expect((await cpctl(['plan', after, '--json'], env)).json<PlanJson>().plan).toMatchObject({
      added: [],
      changed: [],
      removed: [],
      deprecated: [],
    });
  });

  it('apply at a stale revision is refused with exit 6 and applies nothing', async () => {
    const dir = await exported('stale');
    editYaml(join(dir, 'invoice-lookup.yaml'), (d) => ((d.skill as Record<string, unknown>).name = 'Look an invoice up'));
    const reviewed = (await cpctl(['plan', dir, '--json'], env)).json<PlanJson>();
    // Someone else changes the registry after the plan was reviewed.
    const other = await exported('stale-other');
    editYaml(join(other, 'invoice-lookup.yaml'), (d) => ((d.skill as Record<string, unknown>).examples = ['Where is invoice INV-1?']));
    expect((await cpctl(['apply', other], env)).code).toBe(0);
    const current = await revision();

    const stale = await cpctl(['apply', dir, '--expected-revision', String(reviewed.revision)], env);
    expect(stale.code).toBe(6);
    expect(stale.stderr).toContain(`changed since the plan was read at revision ${reviewed.revision}`);
    expect(stale.stderr).toContain('run plan again');
    expect(await revision()).toBe(current);
    const json = await cpctl(['apply', dir, '--expected-revision', String(reviewed.revision), '--json'], env);
    expect(json.json()).toMatchObject({ command: 'apply', ok: false, exitCode: 6, error: { code: 'STALE_REVISION' } });
  });

  it('a bad or missing token exits 7, an unreachable control plane 8, an unknown agent 9', async () => {
    const dir = await exported('errors');
    const bad = await cpctl(['plan', dir], { ...env, CPCTL_TOKEN: 'not-a-jwt' });
    expect(bad.code).toBe(7);
    expect(bad.stderr).toContain('CPCTL_TOKEN');
    expect((await cpctl(['plan', dir], { CPCTL_URL: env.CPCTL_URL })).code).toBe(7);

    const url = `http://127.0.0.1:${await closedPort()}/graphql`;
    const down = await cpctl(['plan', dir, '--url', url], env);
    expect(down.code).toBe(8);
    expect(down.stderr).toContain(`cannot reach the control plane at ${url}: connection refused`);
    expect((await cpctl(['export', '--agent', AGENT, ws.path('x'), '--json'], { ...env, CPCTL_URL: url })).json()).toMatchObject({
      exitCode: 8,
      error: { code: 'UNREACHABLE' },
    });

    const unknown = await cpctl(['plan', dir, '--agent', 'nobody-agent'], env);
    expect(unknown.code).toBe(2); // --agent contradicts agent.yaml's id
    rmSync(join(dir, 'agent.yaml'));
    const missing = await cpctl(['plan', dir, '--agent', 'nobody-agent'], env);
    expect(missing.code).toBe(9);
    expect(missing.stderr).toContain('nobody-agent');
  });

  it('card diff --agent gates the published card against a released one', async () => {
    const released = ws.path('released.json');
    expect((await cpctl(['card', 'show', '--agent', AGENT, '--out', released], env)).code).toBe(0);
    expect((await cpctl(['card', 'diff', '--agent', AGENT, '--against', released], env)).code).toBe(0);

    const dir = await exported('card-change');
    editYaml(join(dir, 'invoice-lookup.yaml'), (d) => ((d.skill as Record<string, unknown>).tags = ['finance', 'invoices', 'billing']));
    expect((await cpctl(['apply', dir], env)).code).toBe(0);
    const changed = await cpctl(['card', 'diff', '--agent', AGENT, '--against', released, '--json'], env);
    expect(changed.code).toBe(3);
    expect(changed.json()).toMatchObject({
      source: { agentId: AGENT },
      changed: true,
      breaking: false,
      changes: expect.arrayContaining([expect.objectContaining({ kind: 'tags-changed', skillId: 'invoice-lookup' })]),
    });
    expect((await cpctl(['card', 'diff', '--agent', AGENT, '--against', released, '--approve'], env)).code).toBe(0);
    // The files and the control plane generate the same card.
    expect((await cpctl(['card', 'diff', dir, '--against', released, '--approve', '--json'], env)).json()).toMatchObject({
      card: changed.json<{ card: unknown }>().card,
    });
  });

  it('plan lists the labelled messages (routing-tests.yaml) whose route the change would move', async () => {
    const dir = await exported('routing');
    writeFileSync(
      join(dir, 'routing-tests.yaml'),
      YAML.stringify({
        tests: [
          { text: 'Look up invoice INV-20931: its status, amounts and due date', expect: 'invoice-lookup' },
          { text: 'hello there', expect: 'clarify' },
        ],
      }),
    );
    const same = await cpctl(['plan', dir, '--json'], env);
    expect(same.code).toBe(0);
    expect(same.json<{ routing: { correct: number; changes: unknown[] } }>().routing).toMatchObject({ correct: 2, changes: [] });
    editYaml(join(dir, 'invoice-lookup.yaml'), (d) => (d.routing = { negative_terms: ['status'] }));
    const plan = await cpctl(['plan', dir], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Changed:\n  ~ invoice-lookup (routing)');
    expect(plan.stdout).toMatch(/Route changes:\n {2}~ tests\[0\] invoice-lookup → \S+ \(expected invoice-lookup\)/);
    expect((await cpctl(['route', 'test', dir], env)).code).toBe(11);
  });
});
