/**
 * Node AI Catalogs signed by the control plane (ADR 0315): the one builder (nodeCatalog) both
 * sides call, the anonymous signature the bundle carries, and a node's catalog per class signed
 * with what the control plane answers, verified before it is served, unsigned (and said so) when
 * there is no good signature.
 */
import fc from 'fast-check';
import { CompactSign } from 'jose';
import {
  bundleContentHash,
  buildNodeBundle,
  checkNodeBundle,
  EntitlementClassIndex,
  financeAgentExample,
  representativeCaller,
  type Caller,
  type NodeBundle,
} from '@cp/capabilities';
import { given, snapshotArb, callerArb } from '@cp/capabilities/testing';
import {
  BUNDLE_SIGNATURE_TYP,
  catalogSignature,
  catalogSigningInput,
  checkAiCatalog,
  nodeCatalog,
  signNodeBundle,
  verifyNodeBundle,
} from '@cp/node-protocol';
import { ActiveBundle } from '@cp/node-sdk';
import { verifyCatalogIndependently } from '../support/independent-catalog-verifier';
import { testSigningKey } from '../support/signed-bundle';

const ours = testSigningKey('cp-key');
const theirs = testSigningKey('cp-key');
const identity = { host: { displayName: 'Acme agents' }, publisher: { identifier: 'acme', displayName: 'Acme' } };
const f = financeAgentExample({ baseUrl: 'http://finance.example:3002' });
const snapshot = given.snapshot(f.manifests, { agentId: 'finance-agent', revision: 3, agent: f.agent });
const partner = f.callers.partner as Exclude<Caller, null>;
const outsider: Caller = { principal: 'someone@globex', tenant: 'globex', scopes: [] };

const signedBundle = (options: { classLimit?: number } = {}) =>
  signNodeBundle(buildNodeBundle(snapshot, { catalog: identity, ...options }), ours.key);

describe('nodeCatalog: the one builder of a node catalog', () => {
  it('is a function of the caller’s entitlement class: the class’s representative caller gets the same document', () => {
    fc.assert(
      fc.property(snapshotArb(10), callerArb, (s, caller) => {
        const params = { ...identity, updatedAt: '2026-12-01T00:00:00.000Z' };
        const index = new EntitlementClassIndex(s);
        const representative = representativeCaller(index, index.key(caller));
        const doc = nodeCatalog(s, params, caller);
        expect(catalogSigningInput(doc)).toBe(catalogSigningInput(nodeCatalog(s, params, representative)));
        expect(checkAiCatalog(doc)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the bundle carries the node catalog’s parameters and the anonymous catalog’s signature', () => {
  it('a bundle built without them has no catalog member (as before)', () => {
    expect(buildNodeBundle(snapshot).catalog).toBeUndefined();
  });

  it('signs the anonymous catalog: verifiable with an independent JCS against the JWKS, and by verifyNodeBundle', async () => {
    const bundle = await signedBundle();
    expect(bundle.catalog).toMatchObject({
      ...identity,
      updatedAt: bundle.generatedAt,
      signature: expect.stringMatching(/^[\w-]+\.\.[\w-]+$/),
    });
    expect(checkNodeBundle(JSON.stringify(bundle)).ok).toBe(true);
    expect(await verifyNodeBundle(bundle, ours.jwks)).toMatchObject({ ok: true });
    const served = await new ActiveBundle(bundle).catalogFor(null, identity);
    expect(await verifyCatalogIndependently(served, ours.jwks)).toEqual({ kid: 'cp-key', alg: 'ES256' });
    expect(JSON.parse(served).entries[0].identifier).toBe('urn:air:acme:agent:finance-agent');
  });

  it('a catalog signature that is not over the bundle’s anonymous catalog fails the bundle, naming the catalog', async () => {
    const bundle = await signedBundle();
    const otherDoc = nodeCatalog(snapshot, { ...bundle.catalog!, updatedAt: '1999-01-01T00:00:00.000Z' }, null);
    const forged: NodeBundle = { ...bundle, catalog: { ...bundle.catalog!, signature: await catalogSignature(otherDoc, ours.key) } };
    // A bundle the key really signed (its own JWS over the recomputed contentHash), whose catalog signature is another document's.
    const contentHash = bundleContentHash(forged);
    const payload = { agentId: forged.agentId, revision: forged.revision, epoch: forged.snapshot.epoch ?? '', contentHash, iat: 1 };
    const signature = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'ES256', kid: 'cp-key', typ: BUNDLE_SIGNATURE_TYP })
      .sign(ours.key.privateKey);
    expect(await verifyNodeBundle({ ...forged, contentHash, signature }, ours.jwks)).toMatchObject({
      ok: false,
      code: 'BAD_SIGNATURE',
      reason: expect.stringMatching(/^catalog: /),
    });
  });

  it('checkNodeBundle refuses a catalog member of the wrong shape', () => {
    const bundle = buildNodeBundle(snapshot, { catalog: identity });
    for (const catalog of [
      null,
      'x',
      { ...bundle.catalog, host: {} },
      { ...bundle.catalog, publisher: { identifier: 'a' } },
      { ...bundle.catalog, updatedAt: 1 },
      { ...bundle.catalog, signature: '' },
    ]) {
      const check = checkNodeBundle(JSON.stringify({ ...bundle, catalog }));
      expect({ catalog, ok: check.ok, error: check.ok ? '' : check.error }).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^catalog/),
      });
    }
  });
});

describe('ActiveBundle.catalogFor: a class’s catalog signed once, verified, or served unsigned', () => {
  /** What the control plane answers: the signature of the class's catalog, computed from the bundle. */
  const controlPlane = (bundle: NodeBundle, signWith = ours.key) => {
    const asked: string[] = [];
    const index = new EntitlementClassIndex(bundle.snapshot);
    return {
      asked,
      catalogSignature: async (_revision: number, classKey: string) => {
        asked.push(classKey);
        return catalogSignature(nodeCatalog(bundle.snapshot, bundle.catalog!, representativeCaller(index, classKey)), signWith);
      },
      signatures: async () => null,
    };
  };

  it('a class that sees what anonymous callers see is served the bundle’s signed catalog without asking', async () => {
    const bundle = await signedBundle();
    const cp = controlPlane(bundle);
    const active = new ActiveBundle(bundle, { keys: ours.jwks, ...cp });
    const body = await active.catalogFor(outsider, identity);
    expect(body).toBe(await active.catalogFor(null, identity));
    expect(cp.asked).toEqual([]);
  });

  it('an entitled class is asked for once (concurrent requests share it), verified, then served signed from memory', async () => {
    const bundle = await signedBundle();
    const cp = controlPlane(bundle);
    const active = new ActiveBundle(bundle, { keys: ours.jwks, ...cp });
    const bodies = await Promise.all([1, 2, 3].map(async (i) => active.catalogFor({ ...partner, principal: `p${i}` }, identity)));
    expect(new Set(bodies).size).toBe(1);
    expect(await verifyCatalogIndependently(bodies[0], ours.jwks)).toMatchObject({ kid: 'cp-key' });
    expect(JSON.parse(bodies[0]).entries[0].metadata.extendedCardUrl).toMatch(/extendedAgentCard$/);
    expect(await active.catalogFor(partner, identity)).toBe(bodies[0]);
    expect(cp.asked).toEqual([active.classKey(partner)]);
    expect(active.catalogSigning).toEqual({ signed: 1, requested: 1, unsignedServed: 0 });
  });

  it('a signature that does not verify over the catalog the node computed is never served: unsigned, said so, not asked again at once', async () => {
    const bundle = await signedBundle();
    const cp = controlPlane(bundle, theirs.key);
    const unsigned: string[] = [];
    const active = new ActiveBundle(bundle, { keys: ours.jwks, ...cp, onCatalogUnsigned: (_k, reason) => unsigned.push(reason) });
    const body = await active.catalogFor(partner, identity);
    expect(JSON.parse(body).metadata).toBeUndefined();
    expect(JSON.parse(body).entries[0].metadata.extendedCardUrl).toBeDefined();
    expect(unsigned).toEqual([expect.stringMatching(/catalog signature BAD_SIGNATURE/)]);
    await active.catalogFor(partner, identity);
    expect(cp.asked).toHaveLength(1);
    expect(active.catalogSigning).toEqual({ signed: 0, requested: 1, unsignedServed: 2 });
  });

  it('waits at most waitMs for the control plane, then serves unsigned', async () => {
    const bundle = await signedBundle();
    const active = new ActiveBundle(bundle, {
      keys: ours.jwks,
      waitMs: 50,
      signatures: async () => null,
      catalogSignature: () => new Promise<string | null>(() => undefined),
    });
    const started = Date.now();
    const body = await active.catalogFor(partner, identity);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(JSON.parse(body).metadata).toBeUndefined();
    expect(active.catalogSigning.unsignedServed).toBe(1);
  });

  it('a bundle without the catalog’s parameters (an older control plane) is served unsigned with the node’s own host and publisher, and said so once', async () => {
    const bundle = await signNodeBundle(buildNodeBundle(snapshot), ours.key);
    const notes: string[] = [];
    const active = new ActiveBundle(bundle, { keys: ours.jwks, signatures: async () => null, onCatalogUnsigned: (_k, r) => notes.push(r) });
    const mine = { host: { displayName: 'Node host' }, publisher: { identifier: 'node-pub', displayName: 'Node' } };
    const doc = JSON.parse(await active.catalogFor(null, mine));
    expect(doc).toMatchObject({ host: { displayName: 'Node host' }, entries: [{ identifier: 'urn:air:node-pub:agent:finance-agent' }] });
    expect(doc.metadata).toBeUndefined();
    await active.catalogFor(partner, mine);
    expect(notes).toEqual([expect.stringContaining('no catalog parameters')]);
    expect(active.catalogSigning.unsignedServed).toBe(2);
  });
});
