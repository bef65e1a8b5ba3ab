/**
 * Routing hints (issue 13, ADR 0091): they reach the router index and the node bundle's snapshot,
 * never a card; the leak guard ignores them; validation names every bad value; and nothing they
 * say can route a caller outside its entitled set.
 */
import fc from 'fast-check';
import { buildExtendedCard, buildPublicCard } from '../cards';
import { findLeaks } from '../find-leaks';
import { fromManifestDocument, toManifestDocument } from '../manifest-document';
import { buildNodeBundle } from '../node-bundle';
import { buildRouterIndex } from '../router-index';
import { callerArb, snapshotArb } from '../testing/arbitraries';
import { given } from '../testing/given';
import type { CapabilityManifest } from '../types';
import { validateManifest } from '../validate-manifest';
import { route } from './route';

const SECRET_TERM = 'zebra-jargon credit memo';
const SECRET_NEGATIVE = 'quokka negative';

const hinted = (over: Partial<CapabilityManifest> = {}) =>
  given.manifest({
    id: 'credit-note-request',
    visibility: 'public',
    skill: { name: 'Request a credit note', description: 'Asks a supplier for a credit note.', tags: ['finance'] },
    routing: { terms: [SECRET_TERM], negativeTerms: [SECRET_NEGATIVE] },
    ...over,
  });

describe('routing hints', () => {
  const caller = { principal: 'p', tenant: 'acme', scopes: [] };

  it('reach the router index and the bundle snapshot, but no card', () => {
    const snapshot = given.snapshot([hinted(), hinted({ id: 'private-one', visibility: 'extended', handler: 'h.v1.private' })]);
    const cards = [buildPublicCard(snapshot), buildExtendedCard(snapshot, caller)].map((c) => JSON.stringify(c).toLowerCase());
    for (const body of cards) {
      expect(body).not.toContain('zebra');
      expect(body).not.toContain('quokka');
    }
    const index = buildRouterIndex(snapshot, caller);
    expect(index.entries.find((e) => e.id === 'credit-note-request')?.routing).toEqual({
      terms: [SECRET_TERM],
      negativeTerms: [SECRET_NEGATIVE],
    });
    const bundle = buildNodeBundle(snapshot);
    expect(JSON.stringify(bundle.publicCard)).not.toContain('zebra');
    for (const c of bundle.classes) expect(c.extendedCard.body).not.toContain('zebra');
    expect(bundle.snapshot.manifests[0].routing?.terms).toEqual([SECRET_TERM]);
  });

  it('are ignored by the leak guard: a private routing term the public card happens to contain is no leak', () => {
    const pub = given.manifest({
      id: 'public-one',
      visibility: 'public',
      skill: { name: 'Credit memo desk', description: 'Handles every credit memo.', tags: ['finance'] },
    });
    const priv = given.manifest({
      id: 'private-two',
      visibility: 'extended',
      skill: { name: 'Secret thing', description: 'Does secret things.', tags: ['hidden'] },
      routing: { terms: ['credit memo'], negativeTerms: [] },
    });
    expect(findLeaks(buildPublicCard(given.snapshot([pub, priv])), [pub, priv])).toEqual([]);
  });

  it('round-trip through the document format; an empty block is the same manifest as none', () => {
    const m = hinted();
    expect(fromManifestDocument(toManifestDocument(m))).toEqual(m);
    const doc = { ...toManifestDocument(given.manifest({ id: 'plain' })), routing: { terms: [] } };
    const v = validateManifest(doc);
    expect(v.ok && v.manifest.routing).toBeUndefined();
  });

  it('validation names every hostile value and accepts nothing it does not know', () => {
    const doc = {
      ...toManifestDocument(given.manifest({ id: 'hostile' })),
      routing: {
        terms: ['ok', 'ok', '', 'x'.repeat(101), 42],
        negative_terms: Array.from({ length: 51 }, (_, i) => `n${i}`).concat('ok'),
        weights: { ok: 100 },
      },
    };
    const v = validateManifest(doc);
    expect(v.ok).toBe(false);
    const paths = v.ok ? [] : v.errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '$.routing.terms[1]',
        '$.routing.terms[2]',
        '$.routing.terms[3]',
        '$.routing.terms[4]',
        '$.routing.negative_terms',
        '$.routing.weights',
      ]),
    );
    expect(validateManifest({ ...toManifestDocument(given.manifest({ id: 'deep' })), routing: 'cut a po' }).ok).toBe(false);
  });

  it('never widen entitlement: hints naming any word cannot route outside the caller set', () => {
    fc.assert(
      fc.property(
        snapshotArb(30),
        callerArb,
        fc.array(fc.constantFrom('invoice', 'reconcile', 'payroll', 'secret', 'cut a po'), { minLength: 1, maxLength: 4 }),
        (snapshot, c, words) => {
          // Every manifest (entitled or not) learns every word: only the entitled ones may ever win.
          const learned = {
            ...snapshot,
            manifests: snapshot.manifests.map((m) => ({ ...m, routing: { terms: words, negativeTerms: [] } })),
          };
          const index = buildRouterIndex(learned, c);
          const entitled = new Set(index.entries.map((e) => e.id));
          const r = route({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: words.join(' ') }] }, c, index);
          if (r.kind === 'routed') expect(entitled.has(r.entry.id)).toBe(true);
          if (r.kind === 'input-required') {
            for (const x of r.candidates) expect(entitled.has(x.id)).toBe(true);
            for (const x of r.explanation.candidates) expect(entitled.has(x.id)).toBe(true);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
