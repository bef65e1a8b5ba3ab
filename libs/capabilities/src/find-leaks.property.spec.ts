/**
 * The leak guard cannot be evaded by disguise: an extended-only name copied into public text is
 * found whatever zero-width or bidi characters are inserted into it and whatever letters are
 * swapped for confusable look-alikes, and however its case is changed.
 */
import fc from 'fast-check';
import type { AgentCard } from './card-types';
import { buildPublicCard } from './cards';
import { findLeaks } from './find-leaks';
import { CONFUSABLE_SAMPLES, foldLeakText, INVISIBLE_SAMPLES } from './leak-text';
import { given } from './testing/given';

/** An extended-only name: 4-24 Latin letters, digits and single spaces, starting with a letter. */
const nameArb = fc
  .tuple(
    fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
    fc.array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789 '), { minLength: 3, maxLength: 23 }),
  )
  .map(([first, rest]) => (first + rest.join('')).replace(/ +/g, ' ').trim())
  .filter((n) => n.length >= 4);

/** One disguise applied to one character position. */
type Disguise = { at: number; kind: 'invisible' | 'confusable' | 'upper'; pick: number };
const disguiseArb = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom<Disguise['kind']>('invisible', 'confusable', 'upper'),
  pick: fc.nat(),
});

function disguise(text: string, disguises: Disguise[]): string {
  const chars = [...text];
  for (const d of disguises) {
    const i = d.at % chars.length;
    if (d.kind === 'invisible') chars[i] = INVISIBLE_SAMPLES[d.pick % INVISIBLE_SAMPLES.length] + chars[i];
    else if (d.kind === 'upper') chars[i] = chars[i].toUpperCase();
    else {
      const lookAlikes = CONFUSABLE_SAMPLES[chars[i]];
      if (lookAlikes) chars[i] = lookAlikes[d.pick % lookAlikes.length];
    }
  }
  return chars.join('');
}

const publicSkill = given.manifest({ id: 'public-thing', visibility: 'public', skill: { name: 'A public thing', tags: [] } });

function cardWithDescription(description: string): AgentCard {
  const card = buildPublicCard(given.snapshot([publicSkill]));
  return { ...card, skills: card.skills.map((s) => ({ ...s, description })) };
}

describe('findLeaks against disguised copies (property)', () => {
  it('an extended-only name with zero-width/bidi characters or confusables inserted is still found', () => {
    fc.assert(
      fc.property(nameArb, fc.array(disguiseArb, { minLength: 1, maxLength: 8 }), fc.constantFrom('skill', 'agent'), (name, ds, where) => {
        const secret = given.manifest({ visibility: 'extended', skill: { name, description: 'x', tags: [] } });
        const disguised = disguise(name, ds);
        const card =
          where === 'skill' ? cardWithDescription(`See: ${disguised}.`) : { ...cardWithDescription('ok'), description: disguised };
        const leaks = findLeaks(card, [publicSkill, secret]);
        expect(leaks).toContainEqual({ skillId: secret.id, field: 'name', text: name });
      }),
      { numRuns: 500 },
    );
  });

  it('the same disguises never make an honest card leak (the fold does not invent matches)', () => {
    fc.assert(
      fc.property(fc.array(disguiseArb, { maxLength: 8 }), (ds) => {
        const secret = given.manifest({ visibility: 'extended', skill: { name: 'Reconcile an invoice', description: 'x', tags: [] } });
        const card = cardWithDescription(disguise('Look up an invoice by number', ds));
        expect(findLeaks(card, [publicSkill, secret])).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('folding is idempotent and maps every disguise back to the plain text', () => {
    fc.assert(
      fc.property(nameArb, fc.array(disguiseArb, { maxLength: 8 }), (name, ds) => {
        const folded = foldLeakText(disguise(name, ds));
        expect(folded).toBe(foldLeakText(name));
        expect(foldLeakText(folded)).toBe(folded);
      }),
      { numRuns: 500 },
    );
  });
});
