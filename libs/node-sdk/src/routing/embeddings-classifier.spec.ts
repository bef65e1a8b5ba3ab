/**
 * The semantic router against a small local OpenAI-compatible embeddings server
 * (../testing/fake-embeddings.ts: deterministic vectors, no model, same answer on every machine).
 */
import { buildRouterIndex, routeAsync, type RouterEntry } from '@cp/capabilities';
import { given } from '../../../capabilities/src/testing/given';
import { EmbeddingsClassifier } from './embeddings-classifier';
import { fakeEmbeddings, type FakeEmbeddings as Fake, type FakeMode as Mode } from '../testing/fake-embeddings';

const snapshot = given.snapshot([
  given.manifest({
    id: 'book-flight',
    skill: { name: 'Book a flight', description: 'Books a flight.', tags: ['travel'] },
    routing: { terms: ['plane', 'fly', 'airline'], negativeTerms: [] },
  }),
  given.manifest({
    id: 'book-hotel',
    skill: { name: 'Book a hotel', description: 'Books a hotel room.', tags: ['travel'] },
    routing: { terms: ['accommodation', 'stay'], negativeTerms: [] },
  }),
  given.manifest({
    id: 'secret-payroll',
    visibility: 'extended',
    requiresScopes: ['admin.all'],
    skill: { name: 'Run payroll', description: 'Pays salaries.', tags: ['payroll'] },
  }),
]);
const caller = { principal: 'p', tenant: 'acme', scopes: [] };
const entries: RouterEntry[] = buildRouterIndex(snapshot, caller).entries;
const msg = (text: string) => ({ messageId: 'm', role: 'ROLE_USER', parts: [{ text }] });

describe('EmbeddingsClassifier', () => {
  let fake: Fake;
  let clock = 0;
  // Timeouts far from both the fake's answer time on a loaded machine and its 'slow' delay (5 s).
  const make = (timeoutMs = 2_000) =>
    new EmbeddingsClassifier({ url: fake.url, model: 'test-embed', apiKey: 'k', timeoutMs, coolDownMs: 1000, now: () => clock });
  beforeEach(async () => {
    fake = await fakeEmbeddings();
    clock = 0;
  });
  afterEach(() => fake.close());

  it('routes by similarity and caches capability embeddings (the second message sends only itself)', async () => {
    const c = make();
    const r = await c.classifyAsync('I want to fly with an airline on a plane', entries);
    expect(r.id).toBe('book-flight');
    expect(r.ranking?.map((x) => x.id)).toEqual(['book-flight', 'book-hotel']);
    expect(r.reason).toMatch(/embeddings/);
    expect(fake.inputs[0]).toHaveLength(1 + entries.length);
    await c.classifyAsync('somewhere to stay, accommodation please', entries);
    expect(fake.inputs[1]).toEqual(['somewhere to stay, accommodation please']);
  });

  it("never names a capability outside the caller's router index (routeAsync)", async () => {
    const r = await routeAsync(msg('run payroll and pay salaries'), caller, buildRouterIndex(snapshot, caller), { classifier: make() });
    expect(JSON.stringify(r)).not.toContain('secret-payroll');
    expect(fake.inputs.flat().join(' ')).not.toContain('Run payroll');
  });

  it.each<Mode>(['error', 'slow', 'nan', 'short', 'garbage', 'wrong-length', 'out-of-range', 'huge'])(
    'falls back to the lexical router when the endpoint answers %s, then cools down',
    async (mode) => {
      fake.mode = mode;
      const c = make(1_000);
      const r = await c.classifyAsync('book a hotel room, I need accommodation', entries);
      expect(r.id).toBe('book-hotel');
      expect(r.reason).toMatch(/lexical fallback/);
      const asked = fake.inputs.length;
      fake.mode = 'ok';
      const again = await c.classifyAsync('book a hotel room, I need accommodation', entries);
      expect(again.reason).toMatch(/cooling down/);
      expect(fake.inputs.length).toBe(asked);
      clock = 5000;
      expect((await c.classifyAsync('book a hotel room, I need accommodation', entries)).reason).toMatch(/^embeddings/);
    },
  );

  it('falls back when the endpoint is unreachable', async () => {
    const c = make();
    await fake.close();
    const r = await c.classifyAsync('fly on a plane', entries);
    expect(r.reason).toMatch(/lexical fallback/);
    fake = await fakeEmbeddings();
  });
});
