/**
 * Issue 28 items 6 and 7, end to end: "we have an A2A agent" to "it is governed". An official
 * `@a2a-js/sdk` server (express, its own agentCardHandler) is an existing agent on 127.0.0.1. The
 * team exports its agent's manifests, runs the real `cpctl import --from-card`, and applies them
 * with no --allow-unserved. The gateway node fetches the upstream's card (on sync and every
 * second here) and reports it: the fleet view and `cpctl gateway drift` show it served; a skill
 * the upstream adds is uncovered drift; when the upstream goes away its capabilities are
 * unservable with the reason, and a plan that would publish one is refused naming it; when it
 * comes back they are servable again; a skill it drops is missing. A caller of an opted-in tenant
 * is served through the node by the upstream.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import express from 'express';
import YAML from 'yaml';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { mintA2AToken } from '@cp/auth';
import { NodeSync } from '@cp/node-sdk';
import { cpctl, Workspace } from '../support/cpctl-harness';
import { gqlOk } from '../support/graphql-client';
import { answeringExecutor, jsonRpcCard } from '../support/sdk-agent';
import { until } from '../support/until';
import { a2aRpc, AGENT, bearer, startSecurityStack, type Json, type SecurityStack } from '../security/support/stack';
import { platformAdmin } from '../security/support/push';
import { allowLoopbackUpstreams } from './gateway-support/gateway';

jest.setTimeout(600_000);

const FLEET = `query($a: ID!) { fleet(agentId: $a) {
  nodes { nodeId live unservable warnings }
  upstreamDrift { card status reason truncated covered { capabilityId skill } uncovered { id name } missing { capabilityId skill } }
} }`;
const skill = (id: string, name: string) => ({ id, name, description: `${name} for finance teams`, tags: ['finance'] });

/** The existing agent: the SDK's server and card handler; its skills and availability are the test's to change. */
async function existingAgent() {
  const state = { down: false, skills: [skill('match-po', 'Match a purchase order'), skill('Cash Forecast', 'Forecast cash')] };
  const seen: string[] = [];
  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const cardNow = () =>
    jsonRpcCard({
      name: 'Treasury service',
      description: 'An agent the treasury team already runs',
      version: '2.1.0',
      url: `${origin}/a2a/jsonrpc`,
      skills: state.skills,
    });
  const executor = answeringExecutor(() => ({
    artifactId: 'match',
    parts: [{ data: { matched: true, by: 'treasury-upstream' }, mediaType: 'application/json' }],
  }));
  const handler = new DefaultRequestHandler(cardNow(), new InMemoryTaskStore(), executor);
  app.use((req, res, next) => {
    seen.push(`${req.method} ${req.path}`);
    if (state.down) res.status(503).json({ error: 'maintenance' });
    else next();
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => cardNow() }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    origin,
    state,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('onboarding an existing A2A agent: import, servability and drift (issue 28 items 6-7)', () => {
  let stack: SecurityStack;
  let upstream: Awaited<ReturnType<typeof existingAgent>>;
  let env: Record<string, string>;
  let admin: string;
  const ws = new Workspace();
  const dir = ws.path('finance');

  const fleet = async () => (await gqlOk(stack.cpUrl, admin, FLEET, { a: AGENT })).fleet as Json;
  const driftOf = async () =>
    ((await fleet()).upstreamDrift as Json[]).find((d) => d.card === `${upstream.origin}/.well-known/agent-card.json`);
  const unservable = async () => ((await fleet()).nodes as Json[]).flatMap((n) => n.unservable as string[]);

  beforeAll(async () => {
    upstream = await existingAgent();
    // Approvals of upstream changes (docs/approvals.md) are off here: this suite is about import, servability and drift.
    stack = await startSecurityStack('gw_onboard', { UPSTREAM_PROBE_INTERVAL_MS: '1000' });
    admin = platformAdmin(stack);
    env = { CPCTL_URL: `${stack.cpUrl}/graphql`, CPCTL_TOKEN: admin };
    await gqlOk(stack.cpUrl, admin, 'mutation { setApprovalPolicy(input: { kinds: [] }) { kinds } }');
    // A platform admin lets the agent reach the upstream's private address (docs/gateway.md step 2).
    await allowLoopbackUpstreams(stack);
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
    ws.remove();
  });

  it('cpctl import refuses a private address without --allow-private, then writes one preview manifest per skill', async () => {
    expect((await cpctl(['export', '--agent', AGENT, dir], env)).code).toBe(0);
    const refused = await cpctl(['import', '--from-card', upstream.origin, dir, '--owner', 'finance-agents-team', '--json']);
    expect(refused.code).toBe(2);
    expect(refused.json<Json>().error.message).toMatch(/resolves to 127\.0\.0\.1, which is loopback: pass --allow-private/);
    expect(upstream.seen).toEqual([]);

    const run = await cpctl(['import', '--from-card', upstream.origin, dir, '--owner', 'finance-agents-team', '--allow-private', '--json']);
    expect({ code: run.code, out: run.code === 0 ? '' : run.stdout }).toEqual({ code: 0, out: '' });
    const out = run.json<Json>();
    expect(out.agents[0].capabilities).toEqual([
      { id: 'match-po', skill: 'match-po' },
      { id: 'cash-forecast', skill: 'Cash Forecast' },
    ]);
    expect(out.verified).toEqual([{ what: `${upstream.origin}/.well-known/agent-card.json`, outcome: 'unsigned' }]);
    const doc = YAML.parse(await readFile(`${dir}/cash-forecast.yaml`, 'utf8')) as Json;
    expect(doc).toMatchObject({
      id: 'cash-forecast',
      state: 'preview',
      visibility: 'extended',
      owner: 'finance-agents-team',
      upstream: { url: `${upstream.origin}/a2a/jsonrpc`, binding: 'jsonrpc', version: '1.0', skill: 'Cash Forecast' },
    });
    expect((await cpctl(['validate', dir])).code).toBe(0);
  });

  it('applies without --allow-unserved; the node fetches the card and the fleet sees both capabilities served', async () => {
    const apply = await cpctl(['apply', dir, '--agent', AGENT, '--json'], env);
    expect({ code: apply.code, out: apply.code === 0 ? '' : apply.stdout }).toEqual({ code: 0, out: '' });
    expect(apply.json<Json>().plan.added).toEqual(['cash-forecast', 'match-po']);
    await until('the node reports the upstream card', async () => (await driftOf())?.status === 'ok', 60_000);
    expect(await unservable()).not.toEqual(expect.arrayContaining(['match-po']));
    const drift = await driftOf();
    expect(drift).toMatchObject({ status: 'ok', uncovered: [], missing: [] });
    expect(drift!.covered).toEqual([
      { capabilityId: 'cash-forecast', skill: 'Cash Forecast' },
      { capabilityId: 'match-po', skill: 'match-po' },
    ]);
    const cli = await cpctl(['gateway', 'drift', AGENT, '--json'], env);
    expect(cli.code).toBe(0);
  });

  it('a caller of an opted-in tenant is served through the node by the upstream', async () => {
    const { agent } = await gqlOk(stack.cpUrl, admin, `{ agent(id: "${AGENT}") { revision } }`);
    await gqlOk(stack.cpUrl, admin, 'mutation($i: PreviewOptInInput!) { createPreviewOptIn(input: $i) { revision } }', {
      i: { agentId: AGENT, tenantId: 'acme-partner', expectedRevision: agent.revision },
    });
    const sync = stack.node.get(NodeSync);
    await until('the node serves the opt-in', () => (sync.current()?.revision ?? 0) >= agent.revision + 1, 30_000);
    const token = mintA2AToken(stack.cpConfig, 'treasurer@acme-partner', 'acme-partner', [], 600, AGENT);
    const r = await a2aRpc(
      stack.nodeUrl,
      'SendMessage',
      {
        message: { messageId: `m-${randomBytes(4).toString('hex')}`, role: 'ROLE_USER', parts: [{ text: 'match PO-7 please' }] },
        metadata: { skillId: 'match-po' },
      },
      bearer(token),
    );
    expect(r.body.result?.task?.status?.state ?? r.body.result?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(r.body)).toContain('treasury-upstream');
  });

  it('a skill the upstream adds is uncovered drift (cpctl gateway drift exits 19)', async () => {
    upstream.state.skills = [...upstream.state.skills, skill('fx-hedge', 'Hedge FX exposure')];
    await until('the drift shows the new skill', async () => ((await driftOf())?.uncovered as Json[] | undefined)?.length === 1, 60_000);
    expect((await driftOf())!.uncovered).toEqual([{ id: 'fx-hedge', name: 'Hedge FX exposure' }]);
    const cli = await cpctl(['gateway', 'drift', AGENT], env);
    expect(cli.code).toBe(19);
    expect(cli.stdout).toMatch(/uncovered skill "fx-hedge"/);
  });

  it('an upstream that goes away is unservable with the reason, and a plan publishing one of its skills is refused', async () => {
    upstream.state.down = true;
    await until('the fleet sees the upstream down', async () => (await unservable()).includes('match-po'), 60_000);
    const [node] = (await fleet()).nodes as Json[];
    expect(node.warnings.join('\n')).toMatch(
      /match-po: unservable on this node: its upstream's card .* did not answer: the upstream card answered HTTP 503/,
    );
    expect((await driftOf())!.status).toBe('unreachable');
    expect(stack.node.get(NodeSync).status().unservable).toEqual(expect.arrayContaining(['cash-forecast', 'match-po']));

    // Publishing fx-hedge (imported by hand from the same card) while the upstream is down: refused, naming it.
    const fx = YAML.parse(await readFile(`${dir}/match-po.yaml`, 'utf8')) as Json;
    await writeFile(
      `${dir}/fx-hedge.yaml`,
      YAML.stringify({ ...fx, id: 'fx-hedge', state: 'ga', handler: 'gateway.fx_hedge', upstream: { ...fx.upstream, skill: 'fx-hedge' } }),
    );
    const plan = await cpctl(['plan', dir, '--agent', AGENT], env);
    expect(plan.code).not.toBe(0);
    expect(plan.stderr).toContain('fx-hedge.yaml');
    expect(plan.stderr).toMatch(
      /capability "fx-hedge" would be in a card but its upstream cannot be served by live node\(s\) \(.*did not answer/,
    );
    expect((await cpctl(['plan', dir, '--agent', AGENT, '--allow-unserved', 'fx-hedge'], env)).code).toBe(0);
  });

  it('when it comes back its capabilities are servable again, and a skill it dropped is missing', async () => {
    upstream.state.down = false;
    upstream.state.skills = upstream.state.skills.filter((s) => s.id !== 'Cash Forecast');
    await until('the fleet sees the upstream back', async () => !(await unservable()).includes('match-po'), 60_000);
    expect(await unservable()).toContain('cash-forecast');
    expect((await driftOf())!.missing).toEqual([{ capabilityId: 'cash-forecast', skill: 'Cash Forecast' }]);
    expect(stack.node.get(NodeSync).status().unservable).toEqual(['cash-forecast']);
    expect((await readdir(dir)).filter((f) => f.endsWith('.yaml')).length).toBeGreaterThan(2);
  });
});
