import fc from 'fast-check';
import { serializeCard } from './card-version';
import { buildExtendedCard, buildPublicCard } from './cards';
import { canonicalJson } from './canonical-json';
import { enumerateEntitlementClasses } from './entitlement-classes';
import { financeAgentExample } from './fixtures/finance-agent';
import {
  buildNodeBundle,
  bundleContentHash,
  checkNodeBundle,
  nodeBundleContentHash,
  representativeCaller,
  sealNodeBundle,
  type NodeBundle,
} from './node-bundle';
import { EntitlementClassIndex } from './entitlement-classes';
import { buildRouterIndex } from './router-index';
import { callerArb, snapshotArb } from './testing/arbitraries';
import { given } from './testing/given';

const f = financeAgentExample();
const snapshot = (revision = 3) => given.snapshot(f.manifests, { revision });
const clone = (b: NodeBundle): NodeBundle => JSON.parse(JSON.stringify(b));

describe('buildNodeBundle', () => {
  it('holds the public card bytes, every authenticated class, the uncalled policy and the revision', () => {
    const b = buildNodeBundle(snapshot(), { now: new Date('2026-11-30T00:00:00Z') });
    expect(b).toMatchObject({ format: 1, agentId: 'agent-1', revision: 3, generatedAt: '2026-11-30T00:00:00.000Z', classesComplete: true });
    expect(b.publicCard).toEqual(serializeCard(buildPublicCard(snapshot())));
    const authenticated = enumerateEntitlementClasses(snapshot()).filter((c) => c.caller !== null);
    expect(b.classes.map((c) => c.key)).toEqual(authenticated.map((c) => c.key));
    const partner = b.classes.find((c) => c.key === new EntitlementClassIndex(snapshot()).key(f.callers.partner))!;
    expect(partner.extendedCard).toEqual(serializeCard(buildExtendedCard(snapshot(), f.callers.partner)));
    expect(JSON.parse(partner.extendedCard.body).skills.map((s: { id: string }) => s.id)).toContain('reconcile-invoice');
    expect(b.executionPolicy.entries.length).toBeGreaterThan(0);
    expect(b.contentHash).toBe(bundleContentHash(b));
  });

  it('hashes the content as bundleContentHash does, integer-like and "__proto__" keys included', () => {
    // The hash is taken from the canonical text the bundle was parsed from: it must be the text
    // bundleContentHash writes for the parsed bundle, keys V8 orders its own way included.
    const base = snapshot();
    const params = JSON.parse('{"10":"ten","9":"nine","__proto__":{"b":1,"a":2},"z":[{"2":"x","1":"y"}],"é":"\\u2028"}');
    const hostile = { ...base, agent: { ...base.agent, extensions: [{ uri: 'urn:example:ext', required: false, params }] } };
    const b = buildNodeBundle(hostile, { now: new Date(0) });
    expect(Object.keys(b.extensions[0].params!)).toEqual(expect.arrayContaining(['9', '10', '__proto__', 'z']));
    expect(b.contentHash).toBe(bundleContentHash(b));
    expect(b.contentHash).not.toBe(buildNodeBundle(base, { now: new Date(0) }).contentHash);
    expect(checkNodeBundle(b).ok).toBe(true);
  });

  it('has a content hash that ignores generatedAt and changes with the content', () => {
    const a = buildNodeBundle(snapshot(), { now: new Date(1) });
    const b = buildNodeBundle(snapshot(), { now: new Date(2) });
    expect(a.contentHash).toBe(b.contentHash);
    expect(buildNodeBundle(snapshot(4)).contentHash).not.toBe(a.contentHash);
  });

  it('caps the classes and records the cap', () => {
    const b = buildNodeBundle(snapshot(), { classLimit: 1 });
    expect(b.classes).toHaveLength(1);
    expect(b.classesComplete).toBe(false);
    expect(b.classLimit).toBe(1);
    expect(checkNodeBundle(b).ok).toBe(true);
  });

  it('names a representative caller that falls in each class', () => {
    fc.assert(
      fc.property(snapshotArb(40), (s) => {
        const index = new EntitlementClassIndex(s);
        for (const c of buildNodeBundle(s, { classLimit: 64 }).classes) {
          const caller = representativeCaller(index, c.key);
          expect(index.key(caller)).toBe(c.key);
          expect(c.routerIndex).toEqual(JSON.parse(canonicalJson(buildRouterIndex(s, caller))));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('is accepted by checkNodeBundle for any registry, as an object or as JSON text', () => {
    fc.assert(
      fc.property(snapshotArb(60), (s) => {
        const b = buildNodeBundle(s, { classLimit: 32 });
        expect(checkNodeBundle(b)).toEqual({ ok: true, bundle: b });
        expect(checkNodeBundle(JSON.stringify(b)).ok).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describe('checkNodeBundle', () => {
  const good = () => buildNodeBundle(snapshot());
  const error = (v: unknown, current?: { revision: number }) => {
    const r = checkNodeBundle(v, current);
    if (r.ok) throw new Error('expected a refusal');
    return r.error;
  };
  const rehash = (b: NodeBundle) => ({ ...b, contentHash: bundleContentHash(b) });

  it('refuses what is not a bundle, naming the field', () => {
    expect(error('{not json')).toMatch(/^not JSON/);
    expect(error([])).toBe('expected a JSON object');
    expect(error({ ...good(), format: 2 })).toMatch(/^format/);
    expect(error({ ...good(), revision: -1 })).toMatch(/^revision/);
    expect(error({ ...good(), classes: [{ key: 'x' }] })).toMatch(/^classes\[0\]/);
    expect(error({ ...good(), snapshot: { ...good().snapshot, revision: 9 } })).toMatch(/^snapshot.revision/);
  });

  it('refuses a bundle whose content does not match its hash', () => {
    const b = clone(good());
    b.publicCard.body = b.publicCard.body.replace('Finance', 'Fiance');
    expect(error(b)).toMatch(/^contentHash mismatch/);
  });

  it('refuses a rehashed bundle whose projections disagree with its snapshot', () => {
    const b = clone(good());
    b.snapshot.manifests = b.snapshot.manifests.filter((m) => m.id !== 'invoice-lookup');
    expect(error(rehash(b))).toMatch(/^publicCard/);

    // A class without the scope served the partner's card: a leak the hash alone cannot see.
    const leak = clone(good());
    const partnerKey = new EntitlementClassIndex(snapshot()).key(given.caller({ scopes: ['recon.run'], tenant: 'acme-partner' }));
    const victim = leak.classes.findIndex((c) => c.key !== partnerKey);
    leak.classes[victim].extendedCard = serializeCard(
      buildExtendedCard(snapshot(), given.caller({ scopes: ['recon.run'], tenant: 'acme-partner' })),
    );
    expect(error(rehash(leak))).toMatch(/extendedCard: differs from the snapshot/);

    const policy = clone(good());
    policy.executionPolicy.entries = [];
    expect(error(rehash(policy))).toMatch(/^executionPolicy/);
  });

  it('refuses an ETag that does not match its bytes', () => {
    const b = clone(good());
    b.classes[0].extendedCard.etag = '"forged"';
    expect(error(rehash(b))).toMatch(/etag does not match/);
  });

  it('refuses a revision older than the applied one, accepts the same or newer', () => {
    expect(error(good(), { revision: 4 })).toBe('revision 3 is older than the applied revision 4');
    expect(checkNodeBundle(good(), { revision: 3 }).ok).toBe(true);
    expect(checkNodeBundle(good(), { revision: 2 }).ok).toBe(true);
  });

  it('accepts a lower revision from a new registry epoch (a registry recreated from scratch)', () => {
    const b = good();
    const fromOldRegistry = { revision: 9, epoch: '2026-01-01T00:00:00.000Z' };
    expect(checkNodeBundle(b, { revision: 9, epoch: b.snapshot.epoch }).ok).toBe(false);
    expect(checkNodeBundle(b, fromOldRegistry).ok).toBe(true);
  });

  it('never throws on garbage', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        expect(checkNodeBundle(v).ok).toBe(false);
      }),
    );
    const b = clone(good()) as unknown as Record<string, unknown>;
    (b.snapshot as Record<string, unknown>).agent = { name: 1 };
    expect(checkNodeBundle(b).ok).toBe(false);
  });

  it('lets callers sample by property: a random caller gets the same card and index from the bundle or the core', () => {
    let compared = 0;
    fc.assert(
      fc.property(snapshotArb(40), callerArb, (s, caller) => {
        const b = buildNodeBundle(s);
        if (caller === null) {
          expect(b.publicCard.body).toBe(serializeCard(buildPublicCard(s)).body);
          expect(canonicalJson(b.anonymousRouterIndex)).toBe(canonicalJson(buildRouterIndex(s, null)));
          return;
        }
        const key = new EntitlementClassIndex(s).key(caller);
        const c = b.classes.find((x) => x.key === key);
        if (!c) {
          // Only a capped bundle may lack a caller's class (the node computes it lazily).
          expect(b.classesComplete).toBe(false);
          expect(b.classes).toHaveLength(b.classLimit);
          return;
        }
        expect(c.extendedCard.body).toBe(serializeCard(buildExtendedCard(s, caller)).body);
        expect(canonicalJson(c.routerIndex)).toBe(canonicalJson(buildRouterIndex(s, caller)));
        compared++;
      }),
      { numRuns: 80 },
    );
    // Most runs must reach the comparison, or the property proves nothing.
    expect(compared).toBeGreaterThan(40);
  });
});

describe('sealNodeBundle and nodeBundleContentHash (ADR 0194)', () => {
  it('deep-freezes a bundle, whose hash is then computed once and cannot go stale', () => {
    const bundle = sealNodeBundle(clone(buildNodeBundle(snapshot())));
    expect(Object.isFrozen(bundle) && Object.isFrozen(bundle.snapshot.agent) && Object.isFrozen(bundle.classes[0].extendedCard)).toBe(true);
    expect(() => {
      (bundle.snapshot.agent as { description: string }).description = 'changed';
    }).toThrow(TypeError);
    const hash = nodeBundleContentHash(bundle);
    expect(hash).toBe(bundleContentHash(bundle));
    expect(hash).toBe(bundle.contentHash);
    expect(checkNodeBundle(bundle)).toMatchObject({ ok: true });
  });

  it('recomputes every time for a bundle that is not sealed: a change after a check is seen', () => {
    const bundle = clone(buildNodeBundle(snapshot()));
    expect(nodeBundleContentHash(bundle)).toBe(bundle.contentHash);
    bundle.snapshot.agent.description = 'changed after the first hash';
    expect(nodeBundleContentHash(bundle)).not.toBe(bundle.contentHash);
    expect(checkNodeBundle(bundle)).toMatchObject({ ok: false, error: expect.stringMatching(/contentHash mismatch/) });
  });

  it('checkNodeBundle seals what it parses from JSON text', () => {
    const check = checkNodeBundle(JSON.stringify(buildNodeBundle(snapshot())));
    expect(check.ok && Object.isFrozen(check.bundle.snapshot.manifests)).toBe(true);
  });
});
