/**
 * ADR 0361 on the node, over HTTP: with the embeddings endpoint choosing a clarification's choices
 * (the local deterministic server, real HTTP), the question offers what the lexical router could
 * not rank, only among the caller's own capabilities, and a reply naming a choice routes to it on
 * the same task. A broken endpoint leaves the lexical question as it was.
 */
import type { FastifyInstance } from 'fastify';
import { mintA2AToken } from '@cp/auth';
import { DEFAULT_SECOND_OPINION, buildNodeBundle } from '@cp/capabilities';
import { given } from '../../../capabilities/src/testing/given';
import { ActiveBundle } from '../active-bundle';
import { EmbeddingsClassifier } from '../routing/embeddings-classifier';
import { SemanticChoicesClassifier } from '../routing/semantic-choices';
import { completedWith, serveTestA2A, testConfig as config } from '../testing/a2a-test-node';
import { fakeEmbeddings, type FakeEmbeddings } from '../testing/fake-embeddings';
import { HandlerRegistry } from './handler-registry';

const manifests = [
  given.manifest({
    id: 'book-flight',
    handler: 'travel.v1.flight',
    skill: { name: 'Book a flight', description: 'Books a flight.', tags: ['travel'] },
  }),
  given.manifest({
    id: 'book-hotel',
    handler: 'travel.v1.hotel',
    skill: { name: 'Book a hotel', description: 'Books a hotel room.', tags: ['travel'] },
  }),
  given.manifest({
    id: 'expense-report',
    handler: 'expenses.v1.file',
    skill: { name: 'File an expense report', description: 'Files expenses.', tags: ['expenses'] },
  }),
  given.manifest({
    id: 'supplier-statements',
    handler: 'suppliers.v1.statements',
    skill: {
      name: 'Supplier statements',
      description: 'Sends statements of account.',
      tags: ['suppliers'],
      examples: ['Send Zorblat Quuxley Frobnitz their statement.'],
    },
  }),
  given.manifest({
    id: 'secret-payroll',
    handler: 'payroll.v1.run',
    requiresScopes: ['admin.all'],
    skill: { name: 'Run payroll', description: 'Pays salaries.', tags: ['payroll'], examples: ['Zorblat Quuxley Frobnitz payroll run'] },
  }),
];

interface Task {
  id: string;
  status: { state: string; message?: { parts: { text: string }[] } };
  metadata: { routing: { capabilityId?: string; layer?: string; candidates?: { id: string }[]; explanation: { reason: string } } };
}

describe('clarification choices chosen with an embeddings endpoint, on the node (ADR 0361)', () => {
  let app: FastifyInstance;
  let fake: FakeEmbeddings;
  let url = '';

  type Role = 'choices' | 'second-opinion';
  let role = 'choices' as Role;
  let classifiers: Record<Role, SemanticChoicesClassifier>;

  beforeAll(async () => {
    fake = await fakeEmbeddings();
    // Cool-down 0: each test's endpoint behaviour is its own.
    const ranker = new EmbeddingsClassifier({ url: fake.url, model: 'test-embed', apiKey: 'k', timeoutMs: 2_000, coolDownMs: 0 });
    classifiers = {
      choices: new SemanticChoicesClassifier({ ranker }),
      'second-opinion': new SemanticChoicesClassifier({ ranker, secondOpinion: DEFAULT_SECOND_OPINION }),
    };
    const bundle = new ActiveBundle(buildNodeBundle(given.snapshot(manifests)));
    const handlers = new HandlerRegistry();
    for (const m of manifests) handlers.register(m.handler, completedWith());
    ({ app, url } = await serveTestA2A({
      bundle: () => bundle,
      handlers,
      // The node's classifier as EMBEDDINGS_ROLE selects it: `choices`, or `second-opinion` (ADR 0362).
      classifier: {
        classify: (text, candidates) => classifiers[role].classify(text, candidates),
        classifyAsync: (text, candidates) => classifiers[role].classifyAsync(text, candidates),
      },
    }));
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });
  afterEach(() => {
    fake.mode = 'ok';
    role = 'choices';
  });

  const send = async (token: string, message: Record<string, unknown>): Promise<Task> => {
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { role: 'ROLE_USER', ...message } } }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { result: { task: Task } }).result.task;
  };
  const user = mintA2AToken(config, 'p@acme', 'acme', []);

  it('offers the capability only the embeddings rank, first; a reply naming it routes to it on the same task', async () => {
    const asked = await send(user, { messageId: 'a', parts: [{ text: 'Zorblat Quuxley Frobnitz' }] });
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const offered = (asked.metadata.routing.candidates ?? []).map((c) => c.id);
    expect(offered[0]).toBe('supplier-statements');
    expect(offered.length).toBeLessThanOrEqual(3);
    expect(asked.status.message?.parts[0].text).toMatch(/^Which of these did you mean\?\n1\. Supplier statements/);
    // The capability this caller may not use is neither offered nor explained, nor sent to the endpoint.
    expect(JSON.stringify(asked)).not.toContain('secret-payroll');
    expect(fake.inputs.flat().join('\n')).not.toContain('Pays salaries');
    const picked = await send(user, { messageId: 'b', taskId: asked.id, parts: [{ text: '1' }] });
    expect(picked.id).toBe(asked.id);
    expect(picked.metadata.routing).toMatchObject({ capabilityId: 'supplier-statements', layer: 'clarified' });
  });

  it('an endpoint answering garbage leaves the lexical question (its first three, in index order)', async () => {
    fake.mode = 'garbage';
    const asked = await send(user, { messageId: 'c', parts: [{ text: 'Zorblat Quuxley Frobnitz' }] });
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((asked.metadata.routing.candidates ?? []).map((c) => c.id)).toEqual(['book-flight', 'book-hotel', 'expense-report']);
    expect(JSON.stringify(asked)).not.toContain('secret-payroll');
  });

  it('a message the lexical router routes does not reach the endpoint', async () => {
    const before = fake.inputs.length;
    const routed = await send(user, { messageId: 'd', parts: [{ text: 'book a hotel room' }] });
    expect(routed.metadata.routing).toMatchObject({ capabilityId: 'book-hotel', layer: 'classifier' });
    expect(fake.inputs.length).toBe(before);
  });

  // Lexically a hotel booking; by the deterministic embeddings closest to supplier-statements, by
  // more than the margin (0.2).
  const contradicted = 'Book a hotel room for Zorblat Quuxley Frobnitz, Zorblat Quuxley Frobnitz and Zorblat Quuxley Frobnitz';

  it('second opinion: a route the embeddings contradict is asked about, the routed capability first, and "1" routes to it', async () => {
    expect((await send(user, { messageId: 'e', parts: [{ text: contradicted }] })).metadata.routing).toMatchObject({
      capabilityId: 'book-hotel',
      layer: 'classifier',
    });
    role = 'second-opinion';
    const before = fake.inputs.length;
    const asked = await send(user, { messageId: 'f', parts: [{ text: contradicted }] });
    expect(fake.inputs.length).toBe(before + 1);
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const offered = (asked.metadata.routing.candidates ?? []).map((c) => c.id);
    expect(offered[0]).toBe('book-hotel');
    expect(offered).toContain('supplier-statements');
    expect(asked.metadata.routing.explanation.reason).toMatch(/so it asks instead/);
    expect(JSON.stringify(asked)).not.toContain('secret-payroll');
    const picked = await send(user, { messageId: 'g', taskId: asked.id, parts: [{ text: '1' }] });
    expect(picked.id).toBe(asked.id);
    expect(picked.metadata.routing).toMatchObject({ capabilityId: 'book-hotel', layer: 'clarified' });
  });

  it('second opinion: an endpoint answering garbage or an error leaves the lexical route', async () => {
    role = 'second-opinion';
    for (const mode of ['garbage', 'error'] as const) {
      fake.mode = mode;
      const routed = await send(user, { messageId: `h-${mode}`, parts: [{ text: contradicted }] });
      expect(routed.metadata.routing).toMatchObject({ capabilityId: 'book-hotel', layer: 'classifier' });
    }
  });
});
