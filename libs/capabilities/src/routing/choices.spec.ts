import { given } from '../testing/given';
import { buildRouterIndex } from '../router-index';
import {
  DEFAULT_CHOICE_FUSION,
  DEFAULT_SECOND_OPINION,
  applySecondOpinion,
  fuseChoices,
  lexicalChoiceOrder,
  secondOpinionVetoes,
} from './choices';

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

describe('the second opinion (ADR 0362)', () => {
  const rank = (...pairs: [string, number][]) => pairs.map(([id, score]) => ({ id, score }));

  it('vetoes only when the best cosine exceeds the routed capability’s by more than the margin (0.2)', () => {
    expect(DEFAULT_SECOND_OPINION).toEqual({ margin: 0.2 });
    expect(secondOpinionVetoes('a', rank(['b', 0.75], ['a', 0.5]), candidates)).toBe(true);
    expect(secondOpinionVetoes('a', rank(['b', 0.7], ['a', 0.5]), candidates)).toBe(false); // 0.2 is not more than 0.2
    expect(secondOpinionVetoes('a', rank(['a', 0.9], ['b', 0.1]), candidates)).toBe(false);
    // The best need not come first: the scores decide, not the order.
    expect(secondOpinionVetoes('a', rank(['a', 0.1], ['c', 0.2], ['b', 0.9]), candidates)).toBe(true);
  });

  it('a ranking that does not score the routed capability, or scores only outside the candidates, vetoes nothing', () => {
    expect(secondOpinionVetoes('a', rank(['b', 0.9]), candidates)).toBe(false);
    expect(secondOpinionVetoes('a', rank(['a', NaN], ['b', 0.9]), candidates)).toBe(false);
    expect(secondOpinionVetoes('a', rank(['a', 0.1], ['secret', 0.9], ['', 5]), candidates)).toBe(false);
    expect(secondOpinionVetoes('a', rank(['a', 0.1], ['b', Infinity]), candidates)).toBe(false);
    expect(secondOpinionVetoes('a', [null, 7, 'a', { id: 'a' }, { id: 'b', score: '0.9' }], candidates)).toBe(false);
  });

  it('a veto keeps the best guess, drops the confidence to 0 and offers the routed capability first; no veto is null', () => {
    const routed = {
      id: 'c',
      confidence: 0.83,
      plausible: ['c'],
      ranking: [
        { id: 'c', score: 3 },
        { id: 'a', score: 1 },
      ],
    };
    const vetoed = applySecondOpinion(routed, rank(['d', 0.8], ['e', 0.7], ['c', 0.3], ['secret', 9]), candidates);
    expect(vetoed).toMatchObject({ id: 'c', confidence: 0, plausible: ['c', 'd', 'e'] });
    expect(vetoed?.reason).toMatch(/lexical confidence 0\.83\).*puts "d" ahead of it by 0\.500 \(more than 0\.2\)/);
    expect(applySecondOpinion(routed, rank(['c', 0.8], ['d', 0.7]), candidates)).toBeNull();
    expect(applySecondOpinion({ id: null, confidence: 0 }, rank(['d', 0.8]), candidates)).toBeNull();
    expect(applySecondOpinion(routed, 'not a list', candidates)).toBeNull();
  });
});
