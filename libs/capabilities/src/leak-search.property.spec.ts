/**
 * ADR 0200: the leak check's indexed substring search and the ASCII fast path of the fold are
 * optimisations only. Held to what they replace: `haystack.includes(text)` and the full fold.
 */
import fc from 'fast-check';
import { substringSearcher } from './find-leaks';
import { CONFUSABLE_SAMPLES, foldLeakText, foldSlowly, INVISIBLE_SAMPLES } from './leak-text';

/** Small alphabets make repeats and near misses likely; the others add surrogates and look-alikes. */
const alphabets = [
  'ab',
  'abc -#0',
  'bulk-0123456789 #',
  `aé\u0301ß${INVISIBLE_SAMPLES.join('')}${Object.values(CONFUSABLE_SAMPLES).flat().join('')}😀`,
];
const textOver = (alphabet: string, maxLength: number) =>
  fc.array(fc.constantFrom(...Array.from(alphabet)), { maxLength }).map((cs) => cs.join(''));

describe('substringSearcher', () => {
  it('answers exactly haystack.includes(text), for texts inside, across and outside the haystack', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...alphabets)
          .chain((alphabet) =>
            fc.tuple(textOver(alphabet, 400), fc.array(textOver(alphabet, 12), { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 20 })),
          ),
        ([haystack, others, cuts]) => {
          const occurs = substringSearcher(haystack);
          // Pieces of the haystack itself (present), and arbitrary texts (mostly absent).
          const pieces = cuts.map((c, i) => haystack.slice(c % (haystack.length + 1), (c % (haystack.length + 1)) + 3 + (i % 9)));
          for (const text of [...pieces, ...others, haystack, `${haystack}x`, '']) expect(occurs(text)).toBe(haystack.includes(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('falls back to one scan for repetitive text and still answers exactly', () => {
    const haystack = 'ab'.repeat(50_000);
    const occurs = substringSearcher(haystack);
    expect(occurs('abababa')).toBe(true);
    expect(occurs('abba')).toBe(false);
    expect(occurs(`${'ab'.repeat(50_000)}a`)).toBe(false);
  });
});

describe('foldLeakText', () => {
  it('folds ASCII through its fast path exactly as the full fold does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 200 }), (text) => {
        expect(foldLeakText(text)).toBe(foldSlowly(text));
      }),
      { numRuns: 500 },
    );
  });

  it('still folds what is not ASCII fully (a look-alike or an invisible character is not taken for ASCII)', () => {
    const [lookalike] = CONFUSABLE_SAMPLES.e;
    expect(foldLeakText(`Invoic${lookalike}`)).toBe('invoice');
    expect(foldLeakText(`In\u200bvoice`)).toBe('invoice');
  });
});
