/**
 * Issue 11, item 13: the public-card leak guard on the admin API normalises text before matching
 * (confusable letters, zero-width and bidi characters do not hide an extended-only name), flags
 * scope names and tenant slugs, and checks the agent's own card text. A refused change writes
 * nothing (the revision stays).
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken } from '@cp/auth';
import { financeAgentExample, toManifestDocument, type CapabilityManifest } from '@cp/capabilities';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { gql, gqlOk } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const AGENT = 'finance-agent';
const UPDATE_MANIFEST = `mutation($input: ManifestDocumentInput!) { updateManifest(input: $input) { revision } }`;
const CREATE_MANIFEST = `mutation($input: ManifestDocumentInput!) { createManifest(input: $input) { revision } }`;
const UPDATE_AGENT = `mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { revision } }`;
const REVISION = `query($id: String!) { agent(id: $id) { revision description } }`;

describe('the leak guard sees through disguised extended-only text', () => {
  let db: TestDatabase;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  const example = financeAgentExample();
  const lookup = example.manifests.find((m) => m.id === 'invoice-lookup')!;
  const admin = () => mintAdminToken(config, 'alice', ['platform-admin']);
  const revision = async () => (await gqlOk(url, admin(), REVISION, { id: AGENT })).agent.revision as number;
  const publicDescription = async (description: string) => {
    const manifest: CapabilityManifest = { ...lookup, skill: { ...lookup.skill, description } };
    return gql(url, admin(), UPDATE_MANIFEST, {
      input: { agentId: AGENT, expectedRevision: await revision(), manifest: toManifestDocument(manifest) },
    });
  };
  const expectLeakRefused = async (attempt: () => Promise<Awaited<ReturnType<typeof gql>>>) => {
    const before = await revision();
    const res = await attempt();
    expect(res.errors?.[0]?.message).toMatch(/public card would show text of non-public/);
    expect(await revision()).toBe(before);
  };

  beforeAll(async () => {
    db = await createTestDatabase('sec_leaks');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sec-leaks:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    await seedWhenEmpty(app.get(PrismaService));
    // An extended skill offered to one named tenant only: its tenant slug is not public text.
    const partnerOnly: CapabilityManifest = {
      ...example.manifests.find((m) => m.id === 'reconcile-invoice')!,
      id: 'partner-ledger-export',
      skill: { name: 'Export the partner ledger', description: 'Exports a ledger for one partner.', tags: ['ledger'] },
      handler: 'ledger.v1.export',
      tenants: ['acme-partner'],
    };
    await gqlOk(url, admin(), CREATE_MANIFEST, {
      input: { agentId: AGENT, expectedRevision: await revision(), manifest: toManifestDocument(partnerOnly) },
    });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('control: an honest public description is accepted', async () => {
    const res = await publicDescription('Finds an invoice by number.');
    expect(res.errors).toBeUndefined();
  });

  it('a Cyrillic "е" inside an extended-only id or name does not hide it', async () => {
    await expectLeakRefused(() => publicDescription('Also try r\u0435concile-invoice.'));
    await expectLeakRefused(() => publicDescription('Also: R\u0435concil\u0435 an invoic\u0435.'));
  });

  it('zero-width and bidi characters inside an extended-only name do not hide it', async () => {
    await expectLeakRefused(() => publicDescription('Also: Recon\u200bcile an invoice.'));
    await expectLeakRefused(() => publicDescription('Also: Re\u202econcile an \u2066invoice.'));
  });

  it('scope names and tenant slugs of non-public skills are flagged', async () => {
    await expectLeakRefused(() => publicDescription('Partners with recon.run get more.'));
    await expectLeakRefused(() => publicDescription('Built for acme-partner.'));
  });

  it("the agent's own card text is checked", async () => {
    await expectLeakRefused(async () =>
      gql(url, admin(), UPDATE_AGENT, {
        input: { id: AGENT, expectedRevision: await revision(), description: 'Invoices; partners may Reconcile an invoice.' },
      }),
    );
    await expectLeakRefused(async () =>
      gql(url, admin(), UPDATE_AGENT, { input: { id: AGENT, expectedRevision: await revision(), name: 'Finance (recon.run)' } }),
    );
    const ok = await gql(url, admin(), UPDATE_AGENT, {
      input: { id: AGENT, expectedRevision: await revision(), description: 'Looks up invoices.' },
    });
    expect(ok.errors).toBeUndefined();
  });
});
