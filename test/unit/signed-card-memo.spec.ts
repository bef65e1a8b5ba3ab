/**
 * ADR 0390: a control-plane process signs a card's bytes once per key; a card unchanged from the
 * revision before keeps its signed bytes, and what it remembers never stands in for a signature
 * the key, or the bytes, no longer match. A bundle is built, signed and written in one pass, and is
 * the bundle signNodeBundle(buildNodeBundle(…)) makes.
 */
import {
  buildNodeBundle,
  bundleContentHash,
  canonicalJson,
  checkNodeBundle,
  financeAgentExample,
  serializeCard,
  toManifestDocument,
  validateManifests,
  type NodeBundle,
  type RegistrySnapshot,
  type SerializedProjection,
} from '@cp/capabilities';
import {
  buildSignedNodeBundle,
  SignedCardMemo,
  signNodeBundle,
  signProjection,
  verifyCardSignature,
  verifyNodeBundle,
} from '@cp/node-protocol';
import { testSigningKey } from '../support/signed-bundle';

const example = financeAgentExample();
const base: RegistrySnapshot = {
  agentId: 'finance-agent',
  revision: 1,
  agent: example.agent,
  manifests: example.manifests,
  previewTenants: [],
};

/** The snapshot at `revision` with one example added to `capabilityId` (what a promotion does). */
function promoted(snapshot: RegistrySnapshot, capabilityId: string, text: string): RegistrySnapshot {
  const docs = snapshot.manifests.map((m) => toManifestDocument(m));
  const doc = docs.find((d) => d.id === capabilityId)!;
  doc.skill.examples = [...(doc.skill.examples ?? []), text];
  const valid = validateManifests(docs);
  if (!valid.ok) throw new Error(JSON.stringify(valid.errors));
  return { ...snapshot, revision: snapshot.revision + 1, manifests: valid.manifests };
}

const unsignedCard = (name: string): SerializedProjection =>
  serializeCard({ ...(JSON.parse(buildNodeBundle(base).publicCard.body) as object), name } as never);
const cardsOf = (b: NodeBundle) => [b.publicCard, ...b.classes.map((c) => c.extendedCard)];

describe('SignedCardMemo (ADR 0390)', () => {
  const ours = testSigningKey('cp-key');

  it('answers the same signed bytes for the same card bytes and key, and signs a card that differs by one character', async () => {
    const memo = new SignedCardMemo();
    const card = unsignedCard('Finance Agent');
    const first = await memo.signed(card, ours.key, (p) => signProjection(p, ours.key));
    const again = await memo.signed({ ...card }, ours.key, (p) => signProjection(p, ours.key));
    expect(again).toEqual(first);
    expect(memo.stats).toEqual({ reused: 1, signed: 1 });
    expect(await verifyCardSignature(again.body, ours.jwks)).toEqual({ ok: true, kid: 'cp-key' });

    const other = await memo.signed(unsignedCard('Finance Agenz'), ours.key, (p) => signProjection(p, ours.key));
    expect(other.body).not.toBe(first.body);
    expect(JSON.parse(other.body).name).toBe('Finance Agenz');
    expect(await verifyCardSignature(other.body, ours.jwks)).toEqual({ ok: true, kid: 'cp-key' });
  });

  it("never answers by a claimed ETag: a card with another card's ETag gets a signature over its own bytes", async () => {
    const memo = new SignedCardMemo();
    const honest = unsignedCard('Finance Agent');
    await memo.signed(honest, ours.key, (p) => signProjection(p, ours.key));
    const liar = { body: unsignedCard('Evil Agent').body, etag: honest.etag };
    const signed = await memo.signed(liar, ours.key, (p) => signProjection(p, ours.key));
    expect(JSON.parse(signed.body).name).toBe('Evil Agent');
    expect(await verifyCardSignature(signed.body, ours.jwks)).toEqual({ ok: true, kid: 'cp-key' });
    expect(memo.stats.reused).toBe(0);
  });

  it('forgets on another key, even under the same kid (a reloaded key file): the card verifies with the new key only', async () => {
    const memo = new SignedCardMemo();
    const card = unsignedCard('Finance Agent');
    const old = await memo.signed(card, ours.key, (p) => signProjection(p, ours.key));
    const replaced = testSigningKey('cp-key');
    const fresh = await memo.signed(card, replaced.key, (p) => signProjection(p, replaced.key));
    expect(fresh.body).not.toBe(old.body);
    expect(await verifyCardSignature(fresh.body, replaced.jwks)).toEqual({ ok: true, kid: 'cp-key' });
    expect((await verifyCardSignature(fresh.body, ours.jwks)).ok).toBe(false);
    expect(memo.stats).toEqual({ reused: 0, signed: 2 });
    expect(memo.size).toBe(1);
  });

  it('stays within its bound, oldest first out, and never remembers a card larger than the bound', async () => {
    const small = unsignedCard('A');
    const bound = 3 * (small.body.length + 400);
    const memo = new SignedCardMemo(bound);
    for (const name of ['A', 'B', 'C', 'D', 'E']) await memo.signed(unsignedCard(name), ours.key, (p) => signProjection(p, ours.key));
    expect(memo.size).toBeLessThanOrEqual(3);
    await memo.signed(unsignedCard('E'), ours.key, (p) => signProjection(p, ours.key));
    await memo.signed(unsignedCard('A'), ours.key, (p) => signProjection(p, ours.key));
    expect(memo.stats.reused).toBe(1); // E still held, A evicted
    const huge = unsignedCard('x'.repeat(bound));
    const signed = await memo.signed(huge, ours.key, (p) => signProjection(p, ours.key));
    expect(await verifyCardSignature(signed.body, ours.jwks)).toEqual({ ok: true, kid: 'cp-key' });
    expect(memo.size).toBeLessThanOrEqual(3);
  });

  it('a promotion re-signs only the cards it changed: the bundle verifies and checks, unchanged cards keep their bytes', async () => {
    // A capability some classes cannot see: their cards are the bytes they were.
    const unsignedBefore = cardsOf(buildNodeBundle(base)).map((c) => c.body);
    const next = example.manifests
      .map((m) => promoted(base, m.id, 'please look up invoice 4711 for me'))
      .find((s) => cardsOf(buildNodeBundle(s)).some((c, i) => c.body === unsignedBefore[i]))!;
    expect(next).toBeDefined();
    const memo = new SignedCardMemo();
    const before = await signNodeBundle(buildNodeBundle(base), ours.key, undefined, memo);
    const after = await signNodeBundle(buildNodeBundle(next), ours.key, undefined, memo);
    expect((await verifyNodeBundle(after, ours.jwks)).ok).toBe(true);
    expect(checkNodeBundle(JSON.parse(JSON.stringify(after)) as NodeBundle).ok).toBe(true);

    // Which cards the promotion changed, from bundles built without signatures.
    const unsignedAfter = cardsOf(buildNodeBundle(next)).map((c) => c.body);
    const changed = unsignedAfter.map((body, i) => body !== unsignedBefore[i]);
    expect(changed.some(Boolean)).toBe(true);
    expect(changed.some((c) => !c)).toBe(true);
    cardsOf(after).forEach((card, i) => {
      if (changed[i]) expect(card.body).not.toBe(cardsOf(before)[i].body);
      else expect(card).toEqual(cardsOf(before)[i]);
    });
    expect(after.signature).not.toBe(before.signature);
    expect(after.contentHash).not.toBe(before.contentHash);
  });
});

/** A bundle with every signature taken out (cards' `signatures`, the catalog's, the bundle's) and its hash: what two signings share. */
function unsigned(bundle: NodeBundle): string {
  const card = (p: SerializedProjection) => {
    const { signatures: _s, ...rest } = JSON.parse(p.body) as { signatures?: unknown };
    return canonicalJson(rest);
  };
  const { signature: _s, contentHash: _h, catalog, ...rest } = bundle;
  const { signature: _c, ...params } = catalog ?? {};
  return canonicalJson({
    ...rest,
    ...(catalog ? { catalog: params } : {}),
    publicCard: card(rest.publicCard),
    classes: rest.classes.map((c) => ({ ...c, extendedCard: card(c.extendedCard) })),
  });
}

describe('buildSignedNodeBundle (ADR 0390)', () => {
  const ours = testSigningKey('cp-key');
  const now = new Date('2026-12-02T08:00:00Z');
  const catalog = { host: { displayName: 'cp.example' }, publisher: { identifier: 'example', displayName: 'Example' } };

  it('is signNodeBundle(buildNodeBundle(…)): the same content, verified, checked, and the body is the bundle', async () => {
    const snapshot = { ...base, epoch: 'e1' };
    const { bundle, body } = await buildSignedNodeBundle(snapshot, ours.key, { catalog, now });
    const reference = await signNodeBundle(buildNodeBundle(snapshot, { catalog, now }), ours.key, now);
    expect(unsigned(bundle)).toBe(unsigned(reference));
    expect(bundle.catalog?.signature).toEqual(expect.any(String));
    expect(await verifyNodeBundle(bundle, ours.jwks)).toEqual({ ok: true, kid: 'cp-key' });
    const served = JSON.parse(body) as NodeBundle;
    expect(served).toEqual(bundle);
    expect(bundleContentHash(served)).toBe(bundle.contentHash);
    expect(checkNodeBundle(served).ok).toBe(true);
    expect(await verifyNodeBundle(JSON.parse(body) as NodeBundle, ours.jwks)).toEqual({ ok: true, kid: 'cp-key' });
  });

  it('holds no undefined member and shares nothing with the snapshot it was given, hostile keys included', async () => {
    const params = JSON.parse('{"10":"ten","9":"nine","__proto__":{"b":1},"gone":null}') as Record<string, unknown>;
    const snapshot = {
      ...base,
      agent: { ...base.agent, documentationUrl: undefined, extensions: [{ uri: 'urn:example:ext', required: undefined, params }] },
    } as RegistrySnapshot;
    const { bundle, body } = await buildSignedNodeBundle(snapshot, ours.key, { now });
    expect(JSON.parse(body)).toEqual(bundle);
    expect(Object.keys(bundle.extensions[0])).not.toContain('required');
    expect(bundle.snapshot).not.toBe(snapshot);
    expect(bundle.extensions[0].params).not.toBe(params);
    expect(bundleContentHash(JSON.parse(body) as NodeBundle)).toBe(bundle.contentHash);
    expect(checkNodeBundle(JSON.parse(body) as NodeBundle).ok).toBe(true);
    expect((await verifyNodeBundle(bundle, ours.jwks)).ok).toBe(true);
  });

  it('a bundle whose body was changed after signing does not verify or check', async () => {
    const { body } = await buildSignedNodeBundle(base, ours.key, { now, catalog });
    const tampered = JSON.parse(body.replace('Finance Agent', 'Finance Agenz')) as NodeBundle;
    expect((await verifyNodeBundle(tampered, ours.jwks)).ok).toBe(false);
    expect(checkNodeBundle(tampered).ok).toBe(false);
  });
});
