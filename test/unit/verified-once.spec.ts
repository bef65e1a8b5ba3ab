/**
 * ADR 0345: a node process verifies a signed text, checks a bundle's projections and hashes a
 * delta's result once per distinct content, and what it remembers never stands in for a check the
 * keys or the content no longer pass.
 */
import { buildNodeBundle, checkNodeBundle, financeAgentExample, sealNodeBundle, type NodeBundle } from '@cp/capabilities';
import {
  applyNodeBundleDelta,
  CardVerifyCode,
  diffNodeBundles,
  signNodeBundle,
  verifyBundleSignature,
  verifyCardSignature,
  verifyNodeBundle,
  type SignatureKey,
} from '@cp/node-protocol';
import { testSigningKey } from '../support/signed-bundle';

const example = financeAgentExample();
const snapshot = (revision: number, description: string) => ({
  agentId: 'finance-agent',
  revision,
  agent: { ...example.agent, description },
  manifests: example.manifests,
  previewTenants: [],
});
let counter = 0;
/** A bundle no other test has seen (its own description), signed with `key`. */
const freshBundle = (key: SignatureKey, revision = 1) =>
  signNodeBundle(buildNodeBundle(snapshot(revision, `Described ${++counter} at ${Date.now()}.`)), key);
const copy = (bundle: NodeBundle): NodeBundle => sealNodeBundle(JSON.parse(JSON.stringify(bundle)) as NodeBundle);

/** ECDSA verifications WebCrypto ran (jose verifies through crypto.subtle). */
function countVerifications(): { count: () => number; restore: () => void } {
  const spy = jest.spyOn(globalThis.crypto.subtle, 'verify');
  return { count: () => spy.mock.calls.length, restore: () => spy.mockRestore() };
}

describe('verified once per distinct content (ADR 0345)', () => {
  const ours = testSigningKey('cp-key');

  it('a card text verified before is not verified again with the same keys, and concurrent checks share one verification', async () => {
    const card = (await freshBundle(ours.key)).publicCard.body;
    const spy = countVerifications();
    try {
      const all = await Promise.all(Array.from({ length: 20 }, () => verifyCardSignature(card, ours.jwks)));
      expect(all.every((r) => r.ok)).toBe(true);
      const first = spy.count();
      expect(first).toBeGreaterThanOrEqual(1);
      expect(first).toBeLessThanOrEqual(2); // one signature, or the second (SDK reading) too
      expect(await verifyCardSignature(card, ours.jwks)).toEqual({ ok: true, kid: 'cp-key' });
      expect(spy.count()).toBe(first);
    } finally {
      spy.restore();
    }
  });

  it('the same kid with other key material (a replaced key) is not trusted from memory: the card fails', async () => {
    const card = (await freshBundle(ours.key)).publicCard.body;
    expect((await verifyCardSignature(card, ours.jwks)).ok).toBe(true);
    const impostor = testSigningKey('cp-key');
    const result = await verifyCardSignature(card, impostor.jwks);
    expect(result).toMatchObject({ ok: false, code: CardVerifyCode.BadSignature });
  });

  it('a kid no longer in the keys fails after it verified, and a changed character is never a hit', async () => {
    const card = (await freshBundle(ours.key)).publicCard.body;
    expect((await verifyCardSignature(card, ours.jwks)).ok).toBe(true);
    expect(await verifyCardSignature(card, testSigningKey('other').jwks)).toMatchObject({ ok: false, code: CardVerifyCode.UnknownKey });
    const tampered = card.replace('Finance Agent', 'Finance Agenz');
    expect(tampered).not.toBe(card);
    expect(await verifyCardSignature(tampered, ours.jwks)).toMatchObject({ ok: false, code: CardVerifyCode.BadSignature });
  });

  it('a failure is not remembered: the same text verifies once the right keys are given', async () => {
    const card = (await freshBundle(ours.key)).publicCard.body;
    expect((await verifyCardSignature(card, testSigningKey('cp-key').jwks)).ok).toBe(false);
    expect(await verifyCardSignature(card, ours.jwks)).toEqual({ ok: true, kid: 'cp-key' });
  });

  it("a bundle signature remembered still has its claims checked: another bundle's content under the same JWS fails", async () => {
    const bundle = await freshBundle(ours.key);
    const spy = countVerifications();
    try {
      expect((await verifyBundleSignature(copy(bundle), ours.jwks)).ok).toBe(true);
      const first = spy.count();
      expect((await verifyBundleSignature(copy(bundle), ours.jwks)).ok).toBe(true);
      expect(spy.count()).toBe(first);
    } finally {
      spy.restore();
    }
    const other = await freshBundle(ours.key);
    const forged = sealNodeBundle({ ...JSON.parse(JSON.stringify(other)), signature: bundle.signature } as NodeBundle);
    expect(await verifyBundleSignature(forged, ours.jwks)).toMatchObject({ ok: false, code: CardVerifyCode.BadSignature });
    expect(await verifyBundleSignature(copy(bundle), testSigningKey('cp-key').jwks)).toMatchObject({
      ok: false,
      code: CardVerifyCode.BadSignature,
    });
    expect((await verifyNodeBundle(copy(bundle), ours.jwks)).ok).toBe(true);
  });

  it('projections found consistent once are not trusted for other content: a changed card under a matching hash is refused', async () => {
    const bundle = await freshBundle(ours.key);
    expect(checkNodeBundle(copy(bundle)).ok).toBe(true);
    expect(checkNodeBundle(copy(bundle)).ok).toBe(true);
    // The public card's bytes changed and the content hash recomputed to match: only the projection check can refuse it.
    const { contentHash: _h, ...rest } = JSON.parse(JSON.stringify(bundle)) as NodeBundle;
    const body = rest.publicCard.body.replace('Finance Agent', 'Finance Agenz');
    const changed = { ...rest, publicCard: { ...rest.publicCard, body } } as NodeBundle;
    const { bundleContentHash } = await import('@cp/capabilities');
    changed.contentHash = bundleContentHash(changed);
    const result = checkNodeBundle(sealNodeBundle(changed));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/publicCard/);
  });

  it('a delta hashed once for a base is hashed again for a base whose content differs under the same claimed hash', async () => {
    const base = await freshBundle(ours.key, 1);
    const target = await signNodeBundle(buildNodeBundle(snapshot(2, `Target ${++counter}.`)), ours.key);
    const delta = JSON.stringify(diffNodeBundles(base, target));
    const first = applyNodeBundleDelta(copy(base), delta);
    const second = applyNodeBundleDelta(copy(base), delta);
    expect(first.ok && second.ok).toBe(true);
    expect(second.ok && second.bundle.contentHash).toBe(target.contentHash);
    // Same claimed contentHash, other content (one manifest's name): the result must not hash to the target.
    const tamperedBase = JSON.parse(JSON.stringify(base)) as NodeBundle;
    (tamperedBase.snapshot.manifests[0].skill as { name: string }).name = 'Something else';
    const refused = applyNodeBundleDelta(sealNodeBundle(tamperedBase), delta);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error).toMatch(/hashes to/);
  });
});
