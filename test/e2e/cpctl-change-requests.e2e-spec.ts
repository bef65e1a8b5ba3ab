/**
 * cpctl and change requests (issue 32, ADR 0300): `apply` of a gated change exits 20 with the
 * request's id and applies nothing; another admin approves it with `cpctl change-requests approve`
 * (the author gets exit 7), a second approval exits 21, a stale one exits 6; a platform admin's
 * `apply --break-glass <reason>` applies at once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import YAML from 'yaml';
import { mintAdminToken } from '@cp/auth';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { cpctl, Workspace } from '../support/cpctl-harness';

const AGENT = 'finance-agent';
// Every step spawns cpctl from source: minutes on a loaded 2-core box.
jest.setTimeout(600_000);

interface ApplyJson {
  exitCode: number;
  applied: boolean;
  changeRequest: { id: string; status: string; baseRevision: number; breakGlass: boolean } | null;
}

describe('cpctl change requests', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let author: Record<string, string>;
  let approver: Record<string, string>;
  const ws = new Workspace();

  const revision = async () => (await app.get(PrismaService).agent.findUniqueOrThrow({ where: { id: AGENT } })).revision;
  const editYaml = (file: string, edit: (doc: Record<string, unknown>) => void) => {
    const doc = YAML.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    edit(doc);
    writeFileSync(file, YAML.stringify(doc));
  };
  const exported = async (name: string) => {
    const dir = ws.path(name);
    expect((await cpctl(['export', '--agent', AGENT, dir], author)).code).toBe(0);
    return dir;
  };

  beforeAll(async () => {
    db = await createTestDatabase('cpctl_change_requests');
    const config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `test:cpctl-cr:${process.pid}:`,
      GRAPHQL_SCHEMA_FILE: join(tmpdir(), `cpctl-cr-schema-${process.pid}.graphql`),
      APPROVAL_DEFAULT_KINDS: 'public,access,upstream,undeprecate,remove',
    });
    const booted = await bootApp(AppModule, config);
    app = booted.app;
    url = `${booted.url}/graphql`;
    await seedWhenEmpty(app.get(PrismaService));
    author = { CPCTL_URL: url, CPCTL_TOKEN: mintAdminToken(config, 'ci@finance', ['platform-admin']) };
    approver = { CPCTL_URL: url, CPCTL_TOKEN: mintAdminToken(config, 'lead@platform', ['platform-admin']) };
  }, 120_000);
  afterAll(async () => {
    ws.remove();
    await app?.close();
    await db?.drop();
  });

  it('apply of a gated change files a change request (exit 20); the author cannot approve it, another admin does, once', async () => {
    const before = await revision();
    const dir = await exported('gated');
    editYaml(join(dir, 'reconcile-invoice.yaml'), (doc) => {
      doc.requires_scopes = [];
    });
    const plan = await cpctl(['plan', dir], author);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Needs a second admin (approval policy):');
    expect(plan.stdout).toContain('reconcile-invoice: access (no longer requires scope recon.run)');

    const apply = await cpctl(['apply', dir, '--json'], author);
    expect(apply.code).toBe(20);
    const filed = apply.json<ApplyJson>();
    expect(filed).toMatchObject({
      exitCode: 20,
      applied: false,
      changeRequest: { status: 'pending', baseRevision: before, breakGlass: false },
    });
    expect(await revision()).toBe(before);
    const id = filed.changeRequest!.id;

    const listed = await cpctl(['change-requests', 'list', '--status', 'pending', '--agent', AGENT], approver);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('no longer requires scope recon.run');

    const self = await cpctl(['change-requests', 'approve', id], author);
    expect(self.code).toBe(7);
    expect(self.stderr).toContain('another admin must approve it');
    expect(await revision()).toBe(before);

    const approved = await cpctl(['change-requests', 'approve', id, '--comment', 'ok by finance'], approver);
    expect({ code: approved.code, stderr: approved.stderr }).toEqual({ code: 0, stderr: '' });
    expect(approved.stdout).toContain(`agent ${AGENT} is now at revision ${before + 1}`);
    expect(await revision()).toBe(before + 1);

    const twice = await cpctl(['change-requests', 'approve', id, '--json'], approver);
    expect(twice.code).toBe(21);
    expect(twice.json<{ error: { message: string } }>().error.message).toContain('is applied');
  });

  it('approving a request whose agent moved on exits 6 (plan again); break-glass applies at once', async () => {
    const dir = await exported('stale');
    editYaml(join(dir, 'reconcile-invoice.yaml'), (doc) => {
      doc.visibility = 'public';
      doc.requires_scopes = [];
    });
    const filed = (await cpctl(['apply', dir, '--json'], author)).json<ApplyJson>();
    expect(filed.exitCode).toBe(20);
    // An ungated change moves the agent on.
    const other = await exported('other');
    editYaml(join(other, 'invoice-lookup.yaml'), (doc) => {
      (doc.skill as Record<string, unknown>).description = 'Finds invoices by number.';
    });
    expect((await cpctl(['apply', other], author)).code).toBe(0);
    const moved = await revision();
    const stale = await cpctl(['change-requests', 'approve', filed.changeRequest!.id], approver);
    expect(stale.code).toBe(6);
    expect(stale.stderr).toContain('plan the change again');
    expect(await revision()).toBe(moved);

    const again = await exported('break-glass');
    editYaml(join(again, 'reconcile-invoice.yaml'), (doc) => {
      doc.visibility = 'public';
      doc.requires_scopes = [];
    });
    const broken = await cpctl(['apply', again, '--break-glass', 'incident 7: partners locked out', '--json'], author);
    expect(broken.code).toBe(0);
    expect(broken.json<ApplyJson>()).toMatchObject({ applied: true, changeRequest: { status: 'applied', breakGlass: true } });
    expect(await revision()).toBe(moved + 1);
  });
});
