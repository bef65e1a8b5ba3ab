import { given } from '../testing/given';
import { buildRouterIndex } from '../router-index';
import { DEFAULT_CHOICE_FUSION, fuseChoices, lexicalChoiceOrder } from './choices';

const ids = ['a', 'b', 'c', 'd', 'e'];
const candidates = buildRouterIndex(given.snapshot(ids.map((id) => given.manifest({ id }))), given.caller()).entries;

describe('fuseChoices (ADR 0361)', () => {
  it('keeps the lexical best guess first, then fills by reciprocal-rank fusion (semantic weight 2, k 5)', () => {
    expect(DEFAULT_CHOICE_FUSION).toEqual({ keepLexicalFirst: true, k: 5, semanticWeight: 2 });
    // d is the semantic best guess: 2/6 beats b's 1/7 (lexical #2, semantic not ranked).
    expect(fuseChoices(['a', 'b'], ['d', 'e', 'a'], candidates)).toEqual(['a', 'd', 'e']);
    // A capability on both lists outranks one on either alone.
    expect(fuseChoices(['a', 'b', 'c'], ['d', 'c'], candidates)).toEqual(['a', 'c', 'd']);
  });

  it('without a lexical ranking the semantic one decides; without a semantic one the lexical order stays', () => {
    expect(fuseChoices([], ['e', 'd', 'c', 'b'], candidates)).toEqual(['e', 'd', 'c']);
    expect(fuseChoices(['c', 'a', 'b', 'd'], [], candidates)).toEqual(['c', 'a', 'b']);
    expect(fuseChoices([], [], candidates)).toEqual([]);
  });

  it('drops ids that are not candidates (another tenant’s, made up, empty) and repeats, from both orders', () => {
    const hostile = ['secret', 'secret', '', '__proto__', 'd', 'd', 'constructor'];
    expect(fuseChoices(['zz', 'a'], hostile, candidates)).toEqual(['a', 'd']);
    expect(fuseChoices([], hostile, [])).toEqual([]);
  });

  it('never offers more than three', () => {
    expect(fuseChoices(ids, [...ids].reverse(), candidates, { keepLexicalFirst: false, k: 0, semanticWeight: 1 })).toHaveLength(3);
  });

  it('reads the lexical order the way the router offers it: plausible, then the ranking that scored', () => {
    expect(
      lexicalChoiceOrder({
        id: 'a',
        confidence: 0.3,
        plausible: ['a', 'b'],
        ranking: [
          { id: 'a', score: 3 },
          { id: 'c', score: 1 },
          { id: 'b', score: 2 },
          { id: 'd', score: 0 },
        ],
      }),
    ).toEqual(['a', 'b', 'c']);
    expect(lexicalChoiceOrder({ id: null, confidence: 0 })).toEqual([]);
  });
});
