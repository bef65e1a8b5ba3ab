import fc from 'fast-check';
import { buildNodeBundle, bundleContentHash, canonicalJson, type CapabilityManifest, type NodeBundle } from '@cp/capabilities';
import { given, snapshotArb } from '@cp/capabilities/testing';
import { applyNodeBundleDelta, diffNodeBundles, nodeBundleEtag, parseBundleEtag, type NodeBundleDelta } from '@cp/node-protocol';

const registry = (n: number): CapabilityManifest[] =>
  Array.from({ length: n }, (_, i) =>
    given.manifest({
      id: `cap-${String(i).padStart(5, '0')}`,
      visibility: i % 3 === 0 ? 'public' : 'extended',
      requiresScopes: i % 5 === 0 ? ['recon.run'] : [],
      tenants: i % 7 === 0 ? ['acme'] : '*',
    }),
  );
const at = (manifests: CapabilityManifest[], revision: number, now = new Date(1_000 * revision)) =>
  buildNodeBundle(given.snapshot(manifests, { agentId: 'agent-1', revision, epoch: 'e1' }), { now });
const roundTrip = (base: NodeBundle, target: NodeBundle) => applyNodeBundleDelta(base, JSON.stringify(diffNodeBundles(base, target)));
const expectRebuilt = (base: NodeBundle, target: NodeBundle) => {
  const result = roundTrip(base, target);
  if (!result.ok) throw new Error(result.error);
  expect(canonicalJson(result.bundle)).toBe(canonicalJson(target));
};

describe('bundle deltas', () => {
  const base = at(registry(300), 1);

  it('rebuilds the target exactly: a manifest changed, one removed, one added, and the base is left as it was', () => {
    const before = canonicalJson(base);
    const manifests = registry(300)
      .filter((m) => m.id !== 'cap-00010')
      .map((m) => (m.id === 'cap-00003' ? { ...m, skill: { ...m.skill, description: 'Now does something else.' } } : m));
    manifests.splice(40, 0, given.manifest({ id: 'cap-00040a', visibility: 'public' }));
    const target = at(manifests, 2);
    expectRebuilt(base, target);
    expect(canonicalJson(base)).toBe(before);
  });

  it('moves a one-manifest change of a large agent in a few kilobytes, and the card bodies arrive byte for byte', () => {
    const manifests = registry(3000);
    const big = at(manifests, 1);
    const changed = manifests.map((m, i) => (i === 1500 ? { ...m, skill: { ...m.skill, name: 'Renamed skill' } } : m));
    const target = at(changed, 2);
    const delta = JSON.stringify(diffNodeBundles(big, target));
    expect(delta.length).toBeLessThan(10_000);
    expect(JSON.stringify(target).length).toBeGreaterThan(1_000_000);
    const result = applyNodeBundleDelta(big, delta);
    expect(result.ok && result.bundle.publicCard.body).toBe(target.publicCard.body);
    expect(result.ok && result.bundle.classes.map((c) => c.extendedCard.body)).toEqual(target.classes.map((c) => c.extendedCard.body));
  });

  it('anchors a card body splice only on text found once in the base (repetitive cards: skills alike but for their number)', () => {
    // A signature first (new with every build), a block that occurs twice, unique text, the
    // version hash last. The middle of the changed range falls in the block's second occurrence:
    // anchoring on its first occurrence pairs unrelated halves and the diff is the whole card.
    const unique = (tag: string, length: number) =>
      Array.from({ length }, (_, i) => `${tag}${i};`)
        .join('')
        .slice(0, length);
    const block = unique('r', 300);
    const body = (signature: string, change: string, version: string) =>
      `${signature}${block}${unique('f', 800)}${block}${unique('g', 400)}${change}${unique('h', 600)}${version}`;
    const withCard = (bundle: NodeBundle, text: string): NodeBundle => {
      const content = { ...bundle, publicCard: { ...bundle.publicCard, body: text } };
      return { ...content, contentHash: bundleContentHash(content) };
    };
    const a = withCard(at(registry(3), 1), body('A'.repeat(86), 'the old description', 'aaaaaaaaaaaa'));
    const b = withCard(at(registry(3), 2), body('B'.repeat(86), 'a new description', 'bbbbbbbbbbbb'));
    const delta = diffNodeBundles(a, b);
    const patch = (delta.patch as { fields: { publicCard: { fields: { body: { splice?: [number, number, string][] } } } } }).fields
      .publicCard.fields.body;
    expect(patch.splice).toBeDefined();
    expect(patch.splice!.reduce((n, h) => n + h[2].length, 0)).toBeLessThan(200);
    const result = applyNodeBundleDelta(a, JSON.stringify(delta));
    expect(result.ok && result.bundle.publicCard.body).toBe(b.publicCard.body);
  });

  it('replaces a keyed array whose survivors changed order, and still rebuilds it', () => {
    const a = at(registry(20), 1);
    const content = { ...a, snapshot: { ...a.snapshot, manifests: [...a.snapshot.manifests].reverse() } };
    const reordered = { ...content, contentHash: bundleContentHash(content) };
    const delta = diffNodeBundles(a, reordered);
    expect(JSON.stringify(delta.patch)).toContain('"set"');
    const result = applyNodeBundleDelta(a, delta);
    expect(result.ok && result.bundle.snapshot.manifests.map((m) => m.id)).toEqual(reordered.snapshot.manifests.map((m) => m.id));
  });

  it('carries the target signature, generatedAt and contentHash through untouched', () => {
    const target = { ...at(registry(300).slice(1), 2), signature: 'eyJhbGciOiJFUzI1NiJ9..c2ln' } as NodeBundle;
    const result = roundTrip(base, target);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect((result.bundle as unknown as { signature: string }).signature).toBe('eyJhbGciOiJFUzI1NiJ9..c2ln');
    expect(result.bundle.generatedAt).toBe(target.generatedAt);
    expect(result.bundle.contentHash).toBe(target.contentHash);
  });

  it('rebuilds any registry change exactly (property)', () => {
    fc.assert(
      fc.property(snapshotArb(40), snapshotArb(40), (s1, s2) => {
        const b1 = buildNodeBundle(s1, { now: new Date(1) });
        const b2 = buildNodeBundle({ ...s2, revision: s1.revision + 1 }, { now: new Date(2) });
        expectRebuilt(b1, b2);
        expectRebuilt(b2, b1);
      }),
      { numRuns: 40 },
    );
  });

  describe('refuses what does not rebuild the target, naming why, without throwing', () => {
    const target = at(registry(300).slice(2), 2);
    const good = () => JSON.parse(JSON.stringify(diffNodeBundles(base, target))) as NodeBundleDelta & Record<string, unknown>;
    const refused = (delta: unknown, onto: NodeBundle = base) => {
      const result = applyNodeBundleDelta(onto, delta);
      expect(result.ok).toBe(false);
      return result.ok ? '' : result.error;
    };

    it('a delta made from another base (another revision, same revision with another content, another agent)', () => {
      expect(refused(good(), target)).toMatch(/made from revision 1, this node serves revision 2/);
      const otherContent = at(registry(299), 1);
      expect(refused(good(), otherContent)).toMatch(/made from revision 1/);
      expect(refused({ ...good(), agentId: 'agent-2' })).toMatch(/for agent "agent-2"/);
    });

    it('a tampered patch or a wrong contentHash', () => {
      const tampered = good();
      (tampered.patch as { fields: Record<string, unknown> }).fields.protocol = { set: { injected: true } };
      expect(refused(tampered)).toMatch(/hashes to [0-9a-f]{64}, the target is/);
      expect(refused({ ...good(), contentHash: 'f'.repeat(64) })).toMatch(/the target is f{64}/);
    });

    it('malformed envelopes and patches', () => {
      expect(refused('{not json')).toMatch(/not JSON/);
      expect(refused(null)).toMatch(/expected a JSON object/);
      expect(refused([])).toMatch(/expected a JSON object/);
      expect(refused({ ...good(), kind: 'x'.repeat(100_000) })).toMatch(/^delta: kind: expected "node-bundle-delta"/);
      expect(refused({ ...good(), contentHash: 'nope' })).toMatch(/contentHash: expected 64 hex/);
      expect(refused({ ...good(), base: { revision: -1, contentHash: base.contentHash } })).toMatch(/base: expected/);
      expect(refused({ ...good(), patch: { fields: { revision: 'x' } } })).toMatch(/\$\.revision: a patch must be an object/);
      expect(refused({ ...good(), patch: { fields: {}, drop: ['missing'] } })).toMatch(/drop names "missing", which is not there/);
      expect(refused({ ...good(), patch: { fields: { snapshot: { fields: { manifests: { by: 'id', drop: ['nope'] } } } } } })).toMatch(
        /\$\.snapshot\.manifests: drop names "nope"/,
      );
      expect(refused({ ...good(), patch: { fields: { snapshot: { fields: { manifests: { by: 'id', add: [[99_999, {}]] } } } } } })).toMatch(
        /add needs \[index, element\] pairs/,
      );
      expect(refused({ ...good(), patch: { fields: { publicCard: { fields: { body: { splice: [[10, 1e9, 'x']] } } } } } })).toMatch(
        /splice hunks must be/,
      );
      expect(refused({ ...good(), patch: { fields: { revision: { splice: [[0, 0, 'x']] } } } })).toMatch(
        /splice on a value that is not a string/,
      );
      expect(refused({ ...good(), patch: { fields: { protocol: { by: 'id' } } } })).toMatch(/keyed patch on a value that is not an array/);
      expect(refused({ ...good(), patch: { fields: { __proto__: { set: { polluted: true } } } } })).toBeTruthy();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(refused({ ...good(), patch: JSON.parse('{"fields":{"__proto__":{"set":{"polluted":true}}}}') })).toMatch(
        /"__proto__" refused/,
      );
      let deep: unknown = { set: 1 };
      for (let i = 0; i < 200; i++) deep = { fields: { a: deep } };
      expect(refused({ ...good(), patch: deep })).toMatch(/\$\.a: member patch on a value that is not an object/);
      const deepText = `{"kind":"node-bundle-delta","patch":${'{"fields":{"a":'.repeat(50_000)}1${'}}'.repeat(50_000)}}`;
      expect(refused(deepText)).toMatch(/^delta: /);
      expect(refused({ ...good(), patch: { nothing: true } })).toMatch(/needs set, fields or by/);
    });
  });

  it('parseBundleEtag accepts only bundle ETags', () => {
    const etag = nodeBundleEtag(12, 'a'.repeat(64));
    expect(parseBundleEtag(etag)).toEqual({ revision: 12, contentHash: 'a'.repeat(64) });
    for (const bad of [
      '',
      '*',
      'r12-aaaa',
      `W/${etag}`,
      `"r-1-${'a'.repeat(64)}"`,
      `"r99999999999-${'a'.repeat(64)}"`,
      etag + ',' + etag,
      'x'.repeat(10_000),
    ]) {
      expect(parseBundleEtag(bad)).toBeUndefined();
    }
  });
});
