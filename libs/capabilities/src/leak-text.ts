/**
 * Text folding for the leak guard: two strings that a reader would take for the same words fold
 * to the same string. NFKD (full-width letters, ligatures, compatibility forms; accents split
 * off), invisible characters and combining marks removed (zero-width, bidi controls, soft hyphen,
 * variation selectors, accents stacked on to break a match), NFKC again, then common
 * confusables mapped to the Latin letter they imitate (Cyrillic and Greek look-alikes), then
 * lower case, then whitespace runs collapsed. Folding only ever makes more things match: it is
 * applied to both the public text and the secret text, so a disguised copy cannot hide.
 */

/**
 * Zero-width and filler characters, bidi embeddings/overrides/isolates and marks, soft hyphen,
 * BOM, tag characters. (Combining characters, variation selectors among them, go with the marks.)
 */
const INVISIBLE = /[\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\u{E0000}-\u{E007F}]/gu;

/** Lower-case look-alikes (after toLowerCase) → the Latin letter they imitate. */
const CONFUSABLES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  һ: 'h',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  ӏ: 'l',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
  ϲ: 'c',
  ϳ: 'j',
  // Latin look-alikes outside ASCII that NFKC keeps
  ı: 'i',
  ȷ: 'j',
  ℓ: 'l',
};
// The map is applied after normalisation: add each look-alike's normalised lower-case form too
// (NFKC turns the lunate sigma "ϲ" into "ς", for one).
for (const [from, to] of Object.entries(CONFUSABLES)) {
  for (const variant of [from, from.toUpperCase()]) {
    const normalised = variant.normalize('NFKD').replace(/\p{M}/gu, '').normalize('NFKC').toLowerCase();
    if (normalised.length === 1 && !/[a-z]/.test(normalised)) CONFUSABLES[normalised] ??= to;
  }
}
const CONFUSABLE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'g');

/** No look-alike is ASCII, so ASCII text only needs lower case and whitespace runs collapsed. */
const ASCII_FAST_PATH = Object.keys(CONFUSABLES).every((c) => c.charCodeAt(0) > 0x7f);
const isAscii = (text: string) => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
};

export function foldLeakText(text: string): string {
  // NFKD and NFKC leave ASCII as it is, and it has no invisible character or mark: the same
  // result as the full fold below, without its two normalisations (the leak check folds every
  // text of a 10,000-manifest agent on each change).
  if (ASCII_FAST_PATH && isAscii(text)) return text.toLowerCase().replace(/\s+/g, ' ');
  return foldSlowly(text);
}

/** The full fold (exported for the test that holds the ASCII fast path to it). */
export function foldSlowly(text: string): string {
  return text
    .normalize('NFKD')
    .replace(INVISIBLE, '')
    .replace(/\p{M}/gu, '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(CONFUSABLE, (c) => CONFUSABLES[c])
    .replace(/\s+/g, ' ');
}

/** Characters the fold removes (for tests and fuzzers that try to hide text with them). */
export const INVISIBLE_SAMPLES = [
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u061c',
];

/** Latin letter → look-alikes the fold maps back to it (for tests and fuzzers). */
export const CONFUSABLE_SAMPLES: Record<string, string[]> = Object.entries(CONFUSABLES).reduce<Record<string, string[]>>(
  (acc, [from, to]) => {
    (acc[to] ??= []).push(from, from.toUpperCase());
    return acc;
  },
  {},
);
