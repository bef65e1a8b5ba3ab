import { generateKeyPairSync } from 'node:crypto';
import { buildExtendedCard, buildNodeBundle, buildRouterIndex, financeAgentExample, serializeCard } from '@cp/capabilities';
import { given } from '@cp/capabilities/testing';
import { cardSignatures, verifyCardSignature } from '@cp/node-protocol';
import { ActiveBundle } from './active-bundle';

const f = financeAgentExample();
const snapshot = given.snapshot(f.manifests, { revision: 7 });

describe('ActiveBundle', () => {
  it('serves the precomputed projections of each class, and the public card to anonymous callers', () => {
    const bundle = buildNodeBundle(snapshot);
    const active = new ActiveBundle(bundle);
    expect(active.revision).toBe(7);
    expect(active.servedHash).toBe(bundle.contentHash);
    expect(active.extendedCardFor(null)).toBe(bundle.publicCard);
    expect(active.routerIndexFor(null)).toBe(bundle.anonymousRouterIndex);
    const partner = active.extendedCardFor(f.callers.partner);
    expect(partner).toEqual(serializeCard(buildExtendedCard(snapshot, f.callers.partner)));
    expect(bundle.classes.some((c) => c.extendedCard === partner)).toBe(true);
    expect(active.lazyBuilds).toBe(0);
  });

  it('computes a class past the cap lazily, with the core, once', () => {
    const active = new ActiveBundle(buildNodeBundle(snapshot, { classLimit: 0 }));
    const card = active.extendedCardFor(f.callers.partner);
    expect(card).toEqual(serializeCard(buildExtendedCard(snapshot, f.callers.partner)));
    expect(active.routerIndexFor(f.callers.partner)).toEqual(buildRouterIndex(snapshot, f.callers.partner));
    expect(active.extendedCardFor({ ...f.callers.partner!, principal: 'someone-else' })).toBe(card);
    expect(active.lazyBuilds).toBe(2);
  });

  it('gives entitlement what it needs at execution', () => {
    const active = new ActiveBundle(buildNodeBundle(given.snapshot(f.manifests, { previewTenants: ['acme'] })));
    expect(active.entitlementContext.previewTenants.has('acme')).toBe(true);
    expect(active.policy.entries.map((e) => e.capabilityId)).toEqual(expect.arrayContaining(['invoice-lookup', 'reconcile-invoice']));
  });
});

/** Polls until the condition holds (at most 10 s). */
async function until(ok: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 10_000; !ok();) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('ActiveBundle: cards of classes past the limit, signed by the control plane (ADR 0132)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const key = { kid: 'k1', privateKey };
  const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' }] };
  const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const lazyBundle = () => buildNodeBundle(snapshot, { classLimit: 0 });
  const partner = f.callers.partner!;
  /** What the control plane answers: signatures of the class's card computed from the snapshot. */
  const controlPlane = (signWith = key) => {
    const asked: [number, string][] = [];
    return {
      asked,
      signatures: async (revision: number, classKey: string) => {
        asked.push([revision, classKey]);
        return cardSignatures(buildExtendedCard(snapshot, partner), signWith);
      },
    };
  };

  it('asks once per class for the signatures, verifies them over the card it computed, then serves the signed card', async () => {
    const cp = controlPlane();
    const active = new ActiveBundle(lazyBundle(), { keys: jwks, signatures: cp.signatures });
    const unsigned = active.extendedCardFor(partner);
    expect(JSON.parse(unsigned.body).signatures).toBeUndefined();
    const cards = await Promise.all([1, 2, 3].map(async (i) => active.signedExtendedCardFor({ ...partner, principal: `p${i}` })));
    expect(cp.asked).toEqual([[7, active.classKey(partner)]]);
    expect(new Set(cards).size).toBe(1);
    expect(await verifyCardSignature(cards[0].body, jwks)).toEqual({ ok: true, kid: 'k1' });
    const { signatures: _s, ...card } = JSON.parse(cards[0].body) as Record<string, unknown>;
    expect(card).toEqual(JSON.parse(unsigned.body));
    // Later requests (sync and async) get the signed card without asking again.
    expect(active.extendedCardFor(partner)).toBe(cards[0]);
    expect(await active.signedExtendedCardFor(partner)).toBe(cards[0]);
    expect(cp.asked).toHaveLength(1);
    expect(active.lazySigning).toEqual({ signed: 1, requested: 1, unsignedServed: 0 });
  });

  it('refuses signatures that do not verify with its pinned keys and serves the card unsigned', async () => {
    const failures: string[] = [];
    const forged = controlPlane({ kid: 'k1', privateKey: other });
    const active = new ActiveBundle(lazyBundle(), {
      keys: jwks,
      signatures: forged.signatures,
      onFailure: (_k, reason) => failures.push(reason),
    });
    const card = await active.signedExtendedCardFor(partner);
    expect(JSON.parse(card.body).signatures).toBeUndefined();
    expect(failures).toEqual([expect.stringMatching(/^signature BAD_SIGNATURE/)]);
    // Signatures of another class's card do not fit this one either.
    const wrongCard = new ActiveBundle(lazyBundle(), {
      keys: jwks,
      signatures: async () => cardSignatures(buildExtendedCard(snapshot, f.callers.partnerWithoutScope), key),
    });
    expect(JSON.parse((await wrongCard.signedExtendedCardFor(partner)).body).signatures).toBeUndefined();
  });

  it('waits at most waitMs for the control plane, then serves unsigned; asks again only after retryAfterMs', async () => {
    let calls = 0;
    const hanging = new ActiveBundle(lazyBundle(), {
      keys: jwks,
      waitMs: 50,
      signatures: () => {
        calls++;
        // Fails, but only after the request stopped waiting.
        return new Promise((_resolve, reject) => setTimeout(() => reject(new Error('control plane timed out')), 150));
      },
    });
    const started = Date.now();
    const card = await hanging.signedExtendedCardFor(partner);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(JSON.parse(card.body).signatures).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    // One request, one unsigned answer (the late failure is not counted again).
    expect(hanging.lazySigning).toEqual({ signed: 0, requested: 1, unsignedServed: 1 });

    // Slower than the wait but answering: that request goes out unsigned, the next gets the signed card.
    const slow = new ActiveBundle(lazyBundle(), {
      keys: jwks,
      waitMs: 20,
      signatures: async () => {
        await new Promise((r) => setTimeout(r, 200));
        return cardSignatures(buildExtendedCard(snapshot, partner), key);
      },
    });
    expect(JSON.parse((await slow.signedExtendedCardFor(partner)).body).signatures).toBeUndefined();
    await until(() => slow.lazySigning.signed === 1);
    expect(await verifyCardSignature((await slow.signedExtendedCardFor(partner)).body, jwks)).toMatchObject({ ok: true });
    expect(slow.lazySigning).toEqual({ signed: 1, requested: 1, unsignedServed: 1 });

    const failing = new ActiveBundle(lazyBundle(), {
      keys: jwks,
      retryAfterMs: 60_000,
      signatures: async () => {
        calls++;
        throw new Error('control plane unreachable');
      },
    });
    await failing.signedExtendedCardFor(partner);
    await failing.signedExtendedCardFor(partner);
    expect(calls).toBe(2); // one for each bundle: the failed class is not asked again within retryAfterMs
    expect(failing.lazySigning).toEqual({ signed: 0, requested: 1, unsignedServed: 2 });
  });

  it('classes in the bundle and the anonymous caller never ask', async () => {
    const cp = controlPlane();
    const bundle = buildNodeBundle(snapshot);
    const active = new ActiveBundle(bundle, { keys: jwks, signatures: cp.signatures });
    expect(await active.signedExtendedCardFor(partner)).toBe(active.extendedCardFor(partner));
    expect(await active.signedExtendedCardFor(null)).toBe(bundle.publicCard);
    expect(cp.asked).toEqual([]);
  });
});
