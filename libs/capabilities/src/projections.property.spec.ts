/**
 * The invariants of "one registry, four projections", over random registries (up to 2,000
 * manifests) and random callers: (a) extended card, router index and execution policy name the
 * same capabilities; (b) the public card is what anonymous gets; (c) nothing a caller is not
 * entitled to appears; (d) output is deterministic. Plus: entitlement classes are sound.
 */
import fc from 'fast-check';
import { canonicalJson } from './canonical-json';
import { checkAgentCard } from './card-schema';
import { serializeCard } from './card-version';
import { buildExtendedCard, buildPublicCard } from './cards';
import { entitlement } from './entitlement';
import { EntitlementClassIndex } from './entitlement-classes';
import { buildExecutionPolicy } from './execution-policy';
import { findLeaks } from './find-leaks';
import { buildRouterIndex } from './router-index';
import { callerArb, snapshotArb } from './testing/arbitraries';
import type { Caller, RegistrySnapshot } from './types';

const RUNS = 25; // each run builds several projections over up to 2,000 manifests: ~3 s per property
const callers = fc.array(callerArb, { minLength: 1, maxLength: 4 });
const SERVER_ONLY_KEYS = [
  'handler',
  'requiresScopes',
  'tenants',
  'limits',
  'owner',
  'state',
  'visibility',
  'replacedBy',
  'deprecationReason',
];

function idsOf(s: RegistrySnapshot, c: Caller) {
  return {
    card: buildExtendedCard(s, c).skills.map((x) => x.id),
    router: buildRouterIndex(s, c).entries.map((x) => x.id),
    policy: buildExecutionPolicy(s, c).entries.map((x) => x.capabilityId),
  };
}

function keysDeep(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => keysDeep(x, out));
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) keysDeep(x, out.add(k));
  return out;
}

describe('projection invariants (property)', () => {
  it('(a) for every caller, extended card, router index and execution policy name the same capabilities', () => {
    fc.assert(
      fc.property(snapshotArb(), callers, (s, cs) => {
        for (const c of cs) {
          const { card, router, policy } = idsOf(s, c);
          expect(router).toEqual(card);
          expect(policy).toEqual(card);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('(b) the public card equals what an anonymous caller gets, and is in every extended card', () => {
    fc.assert(
      fc.property(snapshotArb(), callers, (s, cs) => {
        const pub = buildPublicCard(s);
        expect(serializeCard(buildExtendedCard(s, null))).toEqual(serializeCard(pub));
        const ids = pub.skills.map((x) => x.id);
        expect(idsOf(s, null)).toEqual({ card: ids, router: ids, policy: ids });
        for (const c of cs) {
          if (c === null) continue;
          const extended = new Set(buildExtendedCard(s, c).skills.map((x) => x.id));
          for (const id of ids) expect(extended.has(id)).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('(c) nothing a caller is not entitled to appears, and everything it is entitled to does', () => {
    fc.assert(
      fc.property(snapshotArb(), callers, (s, cs) => {
        const ctx = { previewTenants: s.previewTenants };
        const byId = new Map(s.manifests.map((m) => [m.id, m]));
        const pub = buildPublicCard(s);
        expect(pub.skills.every((x) => entitlement(byId.get(x.id)!, null, ctx).inPublicCard)).toBe(true);
        expect(findLeaks(pub, s.manifests)).toEqual([]);
        const [first] = checkAgentCard(pub);
        if (pub.skills.length > 0) expect(first).toBeUndefined();
        for (const c of cs) {
          const expected = s.manifests
            .filter((m) => entitlement(m, c, ctx).routable)
            .map((m) => m.id)
            .sort();
          expect(idsOf(s, c).card).toEqual(expected);
          const card = buildExtendedCard(s, c);
          for (const k of SERVER_ONLY_KEYS) expect(keysDeep(card).has(k)).toBe(false);
          const index = buildRouterIndex(s, c);
          for (const t of index.tombstones) {
            const m = byId.get(t.id)!;
            expect(m.state).toBe('removed');
            expect(entitlement({ ...m, state: 'deprecated' }, c, ctx).routable).toBe(true);
            if (t.replacedBy !== null) expect(expected).toContain(t.replacedBy);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('(d) output is deterministic: byte-identical across runs and registry orders', () => {
    fc.assert(
      fc.property(snapshotArb(), callers, fc.nat(), (s, cs, rotation) => {
        const n = s.manifests.length;
        const k = n === 0 ? 0 : rotation % n;
        const shuffled = { ...s, manifests: [...s.manifests.slice(k), ...s.manifests.slice(0, k)].reverse() };
        expect(serializeCard(buildPublicCard(shuffled)).body).toBe(serializeCard(buildPublicCard(s)).body);
        for (const c of cs) {
          expect(serializeCard(buildExtendedCard(shuffled, c))).toEqual(serializeCard(buildExtendedCard(s, c)));
          expect(canonicalJson(buildRouterIndex(shuffled, c))).toBe(canonicalJson(buildRouterIndex(s, c)));
          expect(canonicalJson(buildExecutionPolicy(shuffled, c))).toBe(canonicalJson(buildExecutionPolicy(s, c)));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('entitlement classes are sound: same key, same projections; every caller falls in an enumerated class', () => {
    fc.assert(
      fc.property(snapshotArb(), fc.array(callerArb, { minLength: 2, maxLength: 8 }), (s, cs) => {
        const index = new EntitlementClassIndex(s);
        const classes = index.enumerate();
        const enumerated = new Map(classes.map((x) => [x.key, x.caller] as const));
        const seen = new Map<string, string>();
        for (const c of cs) {
          const key = index.key(c);
          if (!classes.truncated) expect(enumerated.has(key)).toBe(true);
          const projections = canonicalJson([buildExtendedCard(s, c), buildRouterIndex(s, c), buildExecutionPolicy(s, c)]);
          const representative = enumerated.get(key);
          if (representative !== undefined) {
            expect(
              canonicalJson([
                buildExtendedCard(s, representative),
                buildRouterIndex(s, representative),
                buildExecutionPolicy(s, representative),
              ]),
            ).toBe(projections);
          }
          if (seen.has(key)) expect(seen.get(key)).toBe(projections);
          seen.set(key, projections);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
