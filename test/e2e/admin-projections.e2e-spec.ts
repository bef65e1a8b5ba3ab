import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken } from '@cp/auth';
import { buildExtendedCard, buildPublicCard, financeAgentExample, serializeCard } from '@cp/capabilities';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { givenDb, type GivenDb } from '../support/given-db';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const EXPLAIN =
  'query($c: String!, $as: CallerInput) { explainVisibility(agentId: "finance-agent", capabilityId: $c, as: $as) { rule reason inPublicCard inExtendedCard routable } }';

describe('admin API projections, tenants, scopes, opt-ins and usage (HTTP)', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;
  let given: GivenDb;
  let platform: string;
  const example = financeAgentExample();
  const partner = { tenant: 'acme-partner', scopes: ['recon.run'] };

  beforeAll(async () => {
    db = await createTestDatabase('admin_projections');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:admin-projections:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    given = givenDb(db.url);
    await given.financeExample();
    platform = mintAdminToken(config, 'platform', ['platform-admin']);
  });
  afterAll(async () => {
    await given?.close();
    await app?.close();
    await db?.drop();
  });

  it("serves the seed's worked example: public card with invoice lookup only; the partner's extended card adds reconciliation", async () => {
    const pub = (await gqlOk(url, platform, '{ publicCard(agentId: "finance-agent") { revision version etag card } }')).publicCard;
    expect(pub.card.skills.map((s: { id: string }) => s.id)).toEqual(['invoice-lookup']);
    const snapshot = { agentId: 'finance-agent', revision: 1, agent: example.agent, manifests: example.manifests, previewTenants: [] };
    expect(pub.etag).toBe(serializeCard(buildPublicCard(snapshot)).etag);
    expect(pub.version).toBe(buildPublicCard(snapshot).version);

    const q = 'query($as: CallerInput!) { extendedCard(agentId: "finance-agent", as: $as) { etag card } }';
    const ext = (await gqlOk(url, platform, q, { as: partner })).extendedCard;
    expect(ext.card.skills.map((s: { id: string }) => s.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
    expect(ext.etag).toBe(
      serializeCard(buildExtendedCard(snapshot, { principal: 'admin-preview', tenant: 'acme-partner', scopes: ['recon.run'] })).etag,
    );
    const noScope = (await gqlOk(url, platform, q, { as: { tenant: 'acme-partner', scopes: [] } })).extendedCard;
    expect(noScope.card.skills.map((s: { id: string }) => s.id)).toEqual(['invoice-lookup']);

    const index = (
      await gqlOk(url, platform, 'query($as: CallerInput) { routerIndex(agentId: "finance-agent", as: $as) { value } }', { as: partner })
    ).routerIndex.value;
    expect(index.entries.map((e: { id: string; handler: string }) => [e.id, e.handler])).toEqual([
      ['invoice-lookup', 'invoices.v1.lookup'],
      ['reconcile-invoice', 'recon.v3.reconcile'],
    ]);
    const policy = (await gqlOk(url, platform, '{ executionPolicy(agentId: "finance-agent") { value } }')).executionPolicy.value;
    expect(policy.entries.find((e: { capabilityId: string }) => e.capabilityId === 'reconcile-invoice')).toMatchObject({
      requiresScopes: ['recon.run'],
      visibility: 'extended',
    });
  });

  it('explainVisibility names the rule that decided', async () => {
    expect((await gqlOk(url, platform, EXPLAIN, { c: 'reconcile-invoice' })).explainVisibility).toMatchObject({
      rule: 'anonymous-not-extended',
      routable: false,
      inPublicCard: false,
    });
    expect(
      (await gqlOk(url, platform, EXPLAIN, { c: 'reconcile-invoice', as: { tenant: 'acme-partner', scopes: [] } })).explainVisibility,
    ).toMatchObject({ rule: 'missing-scopes', routable: false });
    expect((await gqlOk(url, platform, EXPLAIN, { c: 'reconcile-invoice', as: partner })).explainVisibility).toMatchObject({
      rule: 'entitled',
      routable: true,
      inExtendedCard: true,
    });
    expect((await gqlOk(url, platform, EXPLAIN, { c: 'invoice-lookup' })).explainVisibility).toMatchObject({
      rule: 'public',
      inPublicCard: true,
      routable: true,
    });
    expect(codeOf(await gql(url, platform, EXPLAIN, { c: 'nope' }))).toBe('NOT_FOUND');
  });

  it('a preview opt-in is a registry change (new revision) that makes a preview visible to that tenant only', async () => {
    const team = example.manifests[0].owner;
    await given.manifest(
      { id: 'finance-agent', teamId: team },
      {
        id: 'dispute-invoice',
        state: 'preview',
        visibility: 'extended',
        handler: 'disputes.v1.open',
        skill: { name: 'Dispute an invoice', description: 'Opens a dispute.', tags: ['disputes'] },
      },
    );
    const globex = { tenant: 'globex', scopes: [] };
    expect((await gqlOk(url, platform, EXPLAIN, { c: 'dispute-invoice', as: globex })).explainVisibility.rule).toBe('preview-not-opted-in');

    const revision = await given.revisionOf('finance-agent');
    const create = 'mutation($i: PreviewOptInInput!) { createPreviewOptIn(input: $i) { revision optIn { tenantId agentId } } }';
    const res = (await gqlOk(url, platform, create, { i: { agentId: 'finance-agent', tenantId: 'globex', expectedRevision: revision } }))
      .createPreviewOptIn;
    expect(res).toEqual({ revision: revision + 1, optIn: { tenantId: 'globex', agentId: 'finance-agent' } });
    expect(
      codeOf(await gql(url, platform, create, { i: { agentId: 'finance-agent', tenantId: 'globex', expectedRevision: revision + 1 } })),
    ).toBe('CONFLICT');
    expect((await gqlOk(url, platform, EXPLAIN, { c: 'dispute-invoice', as: globex })).explainVisibility).toMatchObject({
      rule: 'entitled',
      routable: true,
    });
    expect((await gqlOk(url, platform, EXPLAIN, { c: 'dispute-invoice', as: partner })).explainVisibility.rule).toBe(
      'preview-not-opted-in',
    );
    expect((await gqlOk(url, platform, '{ previewOptIns(agentId: "finance-agent") { tenantId } }')).previewOptIns).toEqual([
      { tenantId: 'globex' },
    ]);

    // The tenant is in use now: deleting it is refused until the opt-in goes.
    expect(codeOf(await gql(url, platform, 'mutation { deleteTenant(id: "globex") { id } }'))).toBe('CONFLICT');
    const del = 'mutation($i: PreviewOptInInput!) { deletePreviewOptIn(input: $i) { revision } }';
    expect(
      (await gqlOk(url, platform, del, { i: { agentId: 'finance-agent', tenantId: 'globex', expectedRevision: revision + 1 } }))
        .deletePreviewOptIn.revision,
    ).toBe(revision + 2);
    expect((await gqlOk(url, platform, 'mutation { deleteTenant(id: "globex") { id } }')).deleteTenant.id).toBe('globex');
  });

  it('tenants and scopes: create, update, list, delete (refused while used), audited', async () => {
    const t = (await gqlOk(url, platform, 'mutation { createTenant(input: {id: "initech", name: "Initech"}) { id name } }')).createTenant;
    expect(t).toEqual({ id: 'initech', name: 'Initech' });
    expect(codeOf(await gql(url, platform, 'mutation { createTenant(input: {id: "initech", name: "Again"}) { id } }'))).toBe('CONFLICT');
    const bad = await gql(url, platform, 'mutation { createTenant(input: {id: "Not A Slug", name: ""}) { id } }');
    expect((bad.errors![0].extensions.validationErrors as { path: string }[]).map((e) => e.path).sort()).toEqual(['$.id', '$.name']);
    expect(
      (await gqlOk(url, platform, 'mutation { updateTenant(input: {id: "initech", name: "Initech Corp"}) { name } }')).updateTenant.name,
    ).toBe('Initech Corp');
    expect((await gqlOk(url, platform, '{ tenants { nodes { id } } }')).tenants.nodes.map((n: { id: string }) => n.id)).toEqual([
      'acme-partner',
      'initech',
    ]);
    expect((await gqlOk(url, platform, 'mutation { deleteTenant(id: "initech") { id } }')).deleteTenant.id).toBe('initech');
    expect(codeOf(await gql(url, platform, '{ tenant(id: "initech") { id } }'))).toBe('NOT_FOUND');

    expect(
      (await gqlOk(url, platform, 'mutation { createScope(input: {name: "invoice.read", description: "Read invoices"}) { name } }'))
        .createScope.name,
    ).toBe('invoice.read');
    expect(
      (
        await gqlOk(
          url,
          platform,
          'mutation { updateScope(input: {name: "invoice.read", description: "Read any invoice"}) { description } }',
        )
      ).updateScope.description,
    ).toBe('Read any invoice');
    expect(codeOf(await gql(url, platform, 'mutation { deleteScope(name: "recon.run") { name } }'))).toBe('CONFLICT');
    expect((await gqlOk(url, platform, 'mutation { deleteScope(name: "invoice.read") { name } }')).deleteScope.name).toBe('invoice.read');
    expect((await gqlOk(url, platform, '{ scopes { nodes { name } } }')).scopes.nodes).toEqual([{ name: 'recon.run' }]);

    const audit = (
      await gqlOk(
        url,
        platform,
        '{ auditEvents(filter: {targetType: "tenant", targetId: "initech"}) { nodes { action actor before after } } }',
      )
    ).auditEvents.nodes;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['tenant.delete', 'tenant.update', 'tenant.create']);
    expect(audit[1]).toMatchObject({ actor: 'platform', before: { name: 'Initech' }, after: { name: 'Initech Corp' } });
  });

  it('usage per capability, tenant and day, and per manifest with lastCallAt', async () => {
    const node = await given.node('finance-agent');
    const node2 = await given.node('finance-agent');
    await given.usage({
      agentId: 'finance-agent',
      capabilityId: 'invoice-lookup',
      tenantId: 'acme-partner',
      nodeId: node.id,
      day: '2026-11-01',
      count: 5,
    });
    await given.usage({
      agentId: 'finance-agent',
      capabilityId: 'invoice-lookup',
      tenantId: 'acme-partner',
      nodeId: node2.id,
      day: '2026-11-01',
      count: 2,
      lastCallAt: new Date('2026-11-01T18:00:00Z'),
    });
    await given.usage({
      agentId: 'finance-agent',
      capabilityId: 'reconcile-invoice',
      tenantId: 'acme-partner',
      nodeId: node.id,
      day: '2026-11-02',
      count: 1,
    });
    const days = (
      await gqlOk(url, platform, '{ usage(filter: {agentId: "finance-agent"}) { nodes { capabilityId tenantId day calls lastCallAt } } }')
    ).usage.nodes;
    expect(days).toEqual([
      { capabilityId: 'reconcile-invoice', tenantId: 'acme-partner', day: '2026-11-02', calls: 1, lastCallAt: '2026-11-02T12:00:00.000Z' },
      { capabilityId: 'invoice-lookup', tenantId: 'acme-partner', day: '2026-11-01', calls: 7, lastCallAt: '2026-11-01T18:00:00.000Z' },
    ]);
    const windowed = (
      await gqlOk(url, platform, '{ usage(filter: {agentId: "finance-agent", from: "2026-11-02", to: "2026-11-30"}) { nodes { day } } }')
    ).usage.nodes;
    expect(windowed).toEqual([{ day: '2026-11-02' }]);
    const bad = await gql(
      url,
      platform,
      '{ usage(filter: {agentId: "finance-agent", from: "2026-12-01", to: "2026-11-01"}) { nodes { day } } }',
    );
    expect(codeOf(bad)).toBe('BAD_USER_INPUT');

    const perManifest = (
      await gqlOk(url, platform, '{ manifests(filter: {agentId: "finance-agent"}) { nodes { id usage { calls lastCallAt } } } }')
    ).manifests.nodes;
    expect(perManifest).toEqual([
      { id: 'dispute-invoice', usage: { calls: 0, lastCallAt: null } },
      { id: 'invoice-lookup', usage: { calls: 7, lastCallAt: '2026-11-01T18:00:00.000Z' } },
      { id: 'reconcile-invoice', usage: { calls: 1, lastCallAt: '2026-11-02T12:00:00.000Z' } },
    ]);
    // The list fills in `usage` without a window for its page; aliases with a window, a window of
    // null, fragments and a manifest from another resolver still get their own answers.
    const mixed = (
      await gqlOk(
        url,
        platform,
        `query($none: UsageWindowInput) { manifests(filter: {agentId: "finance-agent"}) { nodes { ...Usage
           late: usage(window: {from: "2026-11-02"}) { calls } nulled: usage(window: $none) { calls } } } }
         fragment Usage on CapabilityManifest { id all: usage { calls lastCallAt } }`,
        { none: null },
      )
    ).manifests.nodes;
    expect(mixed).toEqual([
      { id: 'dispute-invoice', all: { calls: 0, lastCallAt: null }, late: { calls: 0 }, nulled: { calls: 0 } },
      { id: 'invoice-lookup', all: { calls: 7, lastCallAt: '2026-11-01T18:00:00.000Z' }, late: { calls: 0 }, nulled: { calls: 7 } },
      { id: 'reconcile-invoice', all: { calls: 1, lastCallAt: '2026-11-02T12:00:00.000Z' }, late: { calls: 1 }, nulled: { calls: 1 } },
    ]);
    const one = await gqlOk(url, platform, '{ manifest(agentId: "finance-agent", capabilityId: "invoice-lookup") { usage { calls } } }');
    expect(one.manifest.usage).toEqual({ calls: 7 });
    const windowOnly = (
      await gqlOk(
        url,
        platform,
        '{ manifests(filter: {agentId: "finance-agent"}) { nodes { usage(window: {to: "2026-11-01"}) { calls } } } }',
      )
    ).manifests.nodes;
    expect(windowOnly).toEqual([{ usage: { calls: 0 } }, { usage: { calls: 7 } }, { usage: { calls: 0 } }]);
  });
});
