import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalJson, canonicalJsonSlow } from './canonical-json';
import { buildPublicCard } from './cards';
import { cardVersion, serializeCard, skillsHash } from './card-version';
import { financeAgentExample } from './fixtures/finance-agent';
import { given } from './testing/given';

describe('canonicalJson', () => {
  it('sorts keys at every depth, has no whitespace and omits undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null, 'x'], c: undefined, b: 'é"' } })).toBe(
      '{"a":{"b":"é\\"","d":[true,null,"x"]},"b":1}',
    );
  });
  it('does not depend on insertion order', () => {
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
  });
  it('refuses values JSON cannot carry', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(TypeError);
  });
});

describe('card version', () => {
  const skills = [{ id: 'a', name: 'A', description: 'Does A.', tags: ['t'] }];

  it('is the agent version plus the first 12 hex of sha256 of the canonical skills', () => {
    const hex = createHash('sha256').update(canonicalJson(skills)).digest('hex').slice(0, 12);
    expect(cardVersion('1.2.0', skills)).toBe(`1.2.0+skills.${hex}`);
    expect(skillsHash(skills)).toMatch(/^[0-9a-f]{12}$/);
  });

  it('appends to existing build metadata instead of adding a second "+"', () => {
    expect(cardVersion('1.2.0+build.7', skills)).toMatch(/^1\.2\.0\+build\.7\.skills\.[0-9a-f]{12}$/);
  });

  it('changes when the skill list changes and only then', () => {
    const finance = financeAgentExample();
    const base = given.snapshot(finance.manifests);
    const v = buildPublicCard(base).version;
    const renamedAgent = given.snapshot(finance.manifests, { agent: { ...finance.agent, description: 'Other text.' } });
    expect(buildPublicCard(renamedAgent).version).toBe(v);
    const edited = finance.manifests.map((m) =>
      m.id === 'invoice-lookup' ? { ...m, skill: { ...m.skill, examples: ['Other example'] } } : m,
    );
    expect(buildPublicCard(given.snapshot(edited)).version).not.toBe(v);
    // An extended-only edit does not change the public skill list, so not the public version.
    const extendedEdit = finance.manifests.map((m) => (m.id === 'reconcile-invoice' ? { ...m, skill: { ...m.skill, name: 'Other' } } : m));
    expect(buildPublicCard(given.snapshot(extendedEdit)).version).toBe(v);
  });
});

describe('serializeCard', () => {
  it('is canonical JSON with a strong ETag of the exact bytes', () => {
    const card = buildPublicCard(given.snapshot(financeAgentExample().manifests));
    const { body, etag } = serializeCard(card);
    expect(body).toBe(canonicalJson(card));
    expect(etag).toBe(`"${createHash('sha256').update(body).digest('base64url')}"`);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  });

  it('is byte-identical for identical input, whatever the registry order', () => {
    const ms = financeAgentExample().manifests;
    const a = serializeCard(buildPublicCard(given.snapshot(ms)));
    const b = serializeCard(buildPublicCard(given.snapshot([...ms].reverse())));
    expect(b).toEqual(a);
  });
});

describe('canonicalJson fast path', () => {
  it('equals the reference writer on any JSON value, integer-like keys included', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.dictionary(fc.constantFrom('10', '9', '1a', '-x', 'a', 'B'), fc.integer()), (v, keyed) => {
        expect(canonicalJson(v)).toBe(canonicalJsonSlow(v));
        expect(canonicalJson({ keyed, v })).toBe(canonicalJsonSlow({ keyed, v }));
      }),
      { numRuns: 500 },
    );
    expect(canonicalJson({ '9': 1, '10': 2, a: 3 })).toBe('{"10":2,"9":1,"a":3}');
    // Found by this property on a CI run: a "__proto__" member must be kept, not become the prototype.
    expect(canonicalJson(JSON.parse('{"__proto__":null,"b":{"__proto__":[1]}}'))).toBe('{"__proto__":null,"b":{"__proto__":[1]}}');
  });
});
