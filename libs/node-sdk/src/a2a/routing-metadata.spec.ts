/**
 * Issue 13 on the node: the task's routing metadata explains the decision (layer, candidates
 * with scores, reason) within what the caller may see, and a clarification the caller resolves
 * by naming a capability is recorded as (message, chosen capability, tenant).
 */
import type { FastifyInstance } from 'fastify';
import { mintA2AToken } from '@cp/auth';
import { buildNodeBundle, financeAgentExample } from '@cp/capabilities';
import { ActiveBundle } from '../active-bundle';
import { completedWith, serveTestA2A, testConfig as config } from '../testing/a2a-test-node';
import type { ClarificationChoice } from './a2a-service';
import { HandlerRegistry } from './handler-registry';

interface Routing {
  capabilityId?: string;
  layer: string;
  explanation: { layer: string; candidates: { id: string; score: number }[]; reason: string };
}

describe('routing metadata and clarification choices on the node', () => {
  let app: FastifyInstance;
  let url = '';
  const choices: ClarificationChoice[] = [];

  beforeAll(async () => {
    const f = financeAgentExample();
    const bundle = new ActiveBundle(
      buildNodeBundle({ agentId: 'finance-agent', revision: 1, agent: f.agent, manifests: f.manifests, previewTenants: [] }),
    );
    const done = completedWith();
    ({ app, url } = await serveTestA2A({
      bundle: () => bundle,
      handlers: new HandlerRegistry().register('invoices.v1.lookup', done).register('recon.v3.reconcile', done),
      clarifications: { record: (c) => choices.push(c) },
    }));
  });
  afterAll(() => app.close());

  const send = async (token: string, message: Record<string, unknown>, metadata?: Record<string, unknown>) => {
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { role: 'ROLE_USER', ...message }, metadata },
      }),
    });
    return (await res.json()) as { result: { task: { id: string; status: { state: string }; metadata: { routing: Routing } } } };
  };
  const partner = mintA2AToken(config, 'p@acme', 'acme-partner', ['recon.run']);
  const noScope = mintA2AToken(config, 'q@acme', 'acme-partner', []);

  it('explains a classifier decision with candidates and scores', async () => {
    const r = await send(partner, { messageId: 'a', parts: [{ text: 'What is the status of invoice INV-20931?' }] });
    const routing = r.result.task.metadata.routing;
    expect(routing).toMatchObject({ capabilityId: 'invoice-lookup', layer: 'classifier' });
    expect(routing.explanation.candidates.map((c) => c.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
    expect(routing.explanation.reason).toContain('invoice-lookup');
  });

  it('never shows a caller a candidate it is not entitled to', async () => {
    const r = await send(noScope, { messageId: 'b', parts: [{ text: 'reconcile invoice INV-1 against its PO' }] });
    expect(JSON.stringify(r)).not.toContain('reconcile-invoice');
  });

  it('records (message, chosen capability, tenant) when a clarification is resolved with a skill id, and only then', async () => {
    const asked = await send(partner, { messageId: 'c', parts: [{ text: 'invoice please' }] });
    expect(asked.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.result.task.metadata.routing.explanation.layer).toBe('clarification');
    const before = choices.length;
    const resolved = await send(
      partner,
      { messageId: 'd', taskId: asked.result.task.id, parts: [{ text: 'the second one' }] },
      { skillId: 'reconcile-invoice' },
    );
    expect(resolved.result.task.metadata.routing).toMatchObject({ capabilityId: 'reconcile-invoice', layer: 'hint' });
    expect(choices.slice(before)).toEqual([{ text: 'invoice please', capabilityId: 'reconcile-invoice', tenant: 'acme-partner' }]);
    // A fresh message with a hint is no clarification: nothing recorded.
    await send(partner, { messageId: 'e', parts: [{ text: 'invoice please' }] }, { skillId: 'invoice-lookup' });
    expect(choices.length).toBe(before + 1);
  });

  it('asks a question a person can answer, and a reply naming a choice routes to it on the same task (issue 31)', async () => {
    const asked = await send(partner, { messageId: 'f', parts: [{ text: 'invoice please' }] });
    const task = asked.result.task as unknown as {
      id: string;
      status: { state: string; message: { parts: { text: string }[] } };
      metadata: { routing: { candidates: { id: string }[] } };
    };
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const question = task.status.message.parts[0].text;
    expect(question).toMatch(/^Which of these did you mean\?\n1\. /);
    expect(question).not.toMatch(/metadata|skillId|resend/);
    const offered = task.metadata.routing.candidates.map((c) => c.id);
    expect(offered.length).toBeGreaterThanOrEqual(2);
    // Out of range and control characters: routed afresh with both texts, still on this task.
    const odd = await send(partner, { messageId: 'g', taskId: task.id, parts: [{ text: '7\u0000' }] });
    expect(odd.result.task.id).toBe(task.id);
    expect(odd.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const before = choices.length;
    const picked = await send(partner, { messageId: 'h', taskId: task.id, parts: [{ text: '2' }] });
    expect(picked.result.task.id).toBe(task.id);
    expect(picked.result.task.metadata.routing).toMatchObject({ capabilityId: offered[1], layer: 'clarified' });
    expect(choices.slice(before)).toEqual([{ text: 'invoice please', capabilityId: offered[1], tenant: 'acme-partner' }]);
  });
});
