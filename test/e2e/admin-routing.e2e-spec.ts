/**
 * Routing through the admin API (issue 13): routeTest (ADR 0092), and learning from
 * clarifications (ADR 0094): nodes report resolved clarifications; admins review and promote
 * them into the manifest through the audited update path (new revision).
 */

import { mintAdminToken, mintNodeToken } from '@cp/auth';
import { financeAgentExample, toManifestDocument } from '@cp/capabilities';
import type { AppConfig } from '@cp/common';
import type { GivenDb } from '../support/given-db';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { financeAdminApp, type FinanceAdminApp } from '../support/finance-admin-app';

const LIST = `query($agentId: String!, $status: String) { routingClarifications(agentId: $agentId, status: $status) { id tenant capabilityId text count status } }`;
const PROMOTE = `mutation($input: PromoteClarificationInput!) { promoteRoutingClarification(input: $input) { revision clarification { id status } } }`;
const ROUTE_TEST = `query($input: RouteTestInput!) { routeTest(input: $input) {
  revision total correct accuracy minAccuracy wrongRoutes falseClarifications correctClarifications passed
  results { index text expect got confidence correct wrong } changes { index expect before after } } }`;
const DISMISS = `mutation($id: ID!) { dismissRoutingClarification(id: $id) { id status } }`;

describe('admin API routing: clarifications (node report → review → promotion) and routeTest', () => {
  let url: string;
  let config: AppConfig;
  let given: GivenDb;
  let admin: string;
  let node: string;
  const agentId = 'finance-agent';

  let stack: FinanceAdminApp;

  beforeAll(async () => {
    stack = await financeAdminApp('routing_clarifications', { agentId });
    ({ url, config, given, admin } = stack);
    const other = await given.agent({ id: 'other-agent' });
    await given.manifest(other, { id: 'other-capability' });
    node = mintNodeToken(config, agentId);
  });
  afterAll(async () => {
    await stack?.close();
  });

  const report = (body: unknown, token: string | null = node) =>
    fetch(`${url}/node/v1/clarifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });

  it('records choices per agent, tenant and capability, counting repeats', async () => {
    const choice = { text: 'match the Globex bill with what we ordered', capabilityId: 'reconcile-invoice', tenant: 'acme-partner' };
    expect((await report({ choices: [choice] })).status).toBe(202);
    expect((await report({ choices: [choice, { ...choice, tenant: 'globex' }] })).status).toBe(202);
    const rows = (await gqlOk(url, admin, LIST, { agentId })).routingClarifications;
    expect(rows).toEqual([
      expect.objectContaining({ tenant: 'acme-partner', capabilityId: 'reconcile-invoice', count: 2, status: 'pending' }),
      expect.objectContaining({ tenant: 'globex', count: 1 }),
    ]);
  });

  it('refuses hostile reports with a clear 4xx and writes nothing', async () => {
    const before = await given.prisma.routingClarification.count();
    const cases: [unknown, string | null, number][] = [
      [{ choices: [{ text: 'x', capabilityId: 'other-capability', tenant: 't' }] }, node, 400], // another agent's capability
      [{ choices: [{ text: 'x', capabilityId: 'no-such', tenant: 't' }] }, node, 400],
      [{ choices: [{ text: 'x'.repeat(2001), capabilityId: 'invoice-lookup', tenant: 't' }] }, node, 400],
      [{ choices: Array.from({ length: 101 }, () => ({ text: 'x', capabilityId: 'invoice-lookup', tenant: 't' })) }, node, 400],
      [{ choices: [{ text: 'x', capabilityId: 'invoice-lookup', tenant: 't', admin: true }] }, node, 400],
      [{ choices: 'all' }, node, 400],
      [{ choices: [{ text: 'x', capabilityId: 'invoice-lookup', tenant: 't' }] }, null, 401],
      [{ choices: [{ text: 'x', capabilityId: 'invoice-lookup', tenant: 't' }] }, admin, 403], // a valid token of another kind
    ];
    for (const [body, token, status] of cases) {
      const res = await report(body, token);
      expect(res.status).toBe(status);
      expect(((await res.json()) as { error: { code: string } }).error.code).toEqual(expect.any(String));
    }
    expect(await given.prisma.routingClarification.count()).toBe(before);
  });

  it('promotes a reviewed clarification into routing terms or examples: audited, new revision, entitlement untouched', async () => {
    const [row] = (await gqlOk(url, admin, LIST, { agentId, status: 'pending' })).routingClarifications;
    const revision = await given.revisionOf(agentId);
    const before = await given.prisma.capabilityManifest.findUniqueOrThrow({
      where: { agentId_capabilityId: { agentId, capabilityId: 'reconcile-invoice' } },
    });
    const stale = await gql(url, admin, PROMOTE, {
      input: { id: row.id, as: 'ROUTING_TERM', text: 'match the bill', expectedRevision: revision - 1 },
    });
    expect(codeOf(stale)).toBe('CONFLICT');
    const done = (
      await gqlOk(url, admin, PROMOTE, { input: { id: row.id, as: 'ROUTING_TERM', text: 'match the bill', expectedRevision: revision } })
    ).promoteRoutingClarification;
    expect(done).toMatchObject({ revision: revision + 1, clarification: { id: row.id, status: 'promoted' } });
    const after = await given.prisma.capabilityManifest.findUniqueOrThrow({
      where: { agentId_capabilityId: { agentId, capabilityId: 'reconcile-invoice' } },
    });
    expect(after.routing).toEqual({ terms: ['match the bill'], negativeTerms: [] });
    expect([after.visibility, after.requiresScopes, after.tenantsAll, after.tenants]).toEqual([
      before.visibility,
      before.requiresScopes,
      before.tenantsAll,
      before.tenants,
    ]);
    expect(await given.prisma.auditEvent.count({ where: { agentId, revision: revision + 1 } })).toBeGreaterThan(0);
    // Once promoted, never again.
    expect(codeOf(await gql(url, admin, PROMOTE, { input: { id: row.id, as: 'EXAMPLE', expectedRevision: revision + 1 } }))).toBe(
      'BAD_USER_INPUT',
    );
  });

  it('lets only the agent team review and dismiss: others see not-found', async () => {
    const stranger = mintAdminToken(config, 'other-team', ['team-admin'], ['some-other-team']);
    expect(codeOf(await gql(url, stranger, LIST, { agentId }))).toBe('NOT_FOUND');
    const [row] = (await gqlOk(url, admin, LIST, { agentId, status: 'pending' })).routingClarifications;
    expect(codeOf(await gql(url, stranger, DISMISS, { id: row.id }))).toBe('NOT_FOUND');
    expect(codeOf(await gql(url, admin, DISMISS, { id: 'no-such-id' }))).toBe('NOT_FOUND');
    expect((await gqlOk(url, admin, DISMISS, { id: row.id })).dismissRoutingClarification.status).toBe('dismissed');
  });

  describe('routeTest', () => {
    const tests = {
      min_accuracy: 0.5,
      tests: [
        { text: 'What is the status of invoice INV-20931?', expect: 'invoice-lookup' },
        { text: 'reconcile invoice INV-1 against its purchase order', expect: 'reconcile-invoice' },
        { text: 'hello', expect: 'clarify' },
      ],
    };

    it('routes labelled messages through the current registry', async () => {
      const r = (await gqlOk(url, admin, ROUTE_TEST, { input: { agentId, tests } })).routeTest;
      expect(r).toMatchObject({ total: 3, correct: 3, wrongRoutes: 0, passed: true, changes: [] });
      expect(r.results.map((x: { got: string }) => x.got)).toEqual(['invoice-lookup', 'reconcile-invoice', 'clarify']);
    });

    it('routes through proposed manifests and lists the messages whose route changes', async () => {
      const docs = financeAgentExample().manifests.map(toManifestDocument);
      // The proposal tells invoice-lookup that "status" is not for it: the message loses its route
      // (the router asks rather than send it to the one weak match left, ADR 0095), and a gate that
      // wants every labelled message right must catch the change.
      docs[0] = { ...docs[0], routing: { negative_terms: ['status'] } };
      const strict = { ...tests, min_accuracy: 1 };
      const r = (await gqlOk(url, admin, ROUTE_TEST, { input: { agentId, tests: strict, manifests: docs } })).routeTest;
      expect(r.passed).toBe(false);
      expect(r.results[0]).toMatchObject({ got: 'clarify', correct: false });
      expect(r.wrongRoutes + r.falseClarifications).toBeGreaterThanOrEqual(1);
      expect(r.changes).toEqual([expect.objectContaining({ index: 0, before: 'invoice-lookup', after: 'clarify' })]);
    });

    it('refuses malformed tests and manifests with paths, and hides agents the caller cannot read', async () => {
      const bad = await gql(url, admin, ROUTE_TEST, {
        input: { agentId, tests: { tests: [{ text: 'x', expect: 'another-agents-capability' }] } },
      });
      expect(codeOf(bad)).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(bad.errors)).toContain('$.tests.tests[0].expect');
      const badManifest = await gql(url, admin, ROUTE_TEST, { input: { agentId, tests, manifests: [{ id: 'Bad Id' }] } });
      expect(codeOf(badManifest)).toBe('BAD_USER_INPUT');
      const huge = await gql(url, admin, ROUTE_TEST, {
        input: { agentId, tests: { tests: Array.from({ length: 2001 }, () => ({ text: 'x', expect: 'clarify' })) } },
      });
      expect(codeOf(huge)).toBe('BAD_USER_INPUT');
      const stranger = mintAdminToken(config, 'other-team', ['team-admin'], ['some-other-team']);
      expect(codeOf(await gql(url, stranger, ROUTE_TEST, { input: { agentId, tests } }))).toBe('NOT_FOUND');
    });
  });
});
