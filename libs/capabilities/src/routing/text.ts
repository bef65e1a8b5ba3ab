/**
 * Text analysis shared by every lexical scorer: tokens → lowercase Porter2 (Snowball English)
 * stems, English stopwords dropped, identifiers and spelled-out dates dropped. Deterministic, no
 * model, no I/O.
 */
import { eng as englishStopwords } from 'stopword';
import porter2 = require('wink-porter2-stemmer');

// The library's English list plus what people type to an assistant that names no capability.
const STOPWORDS = new Set([
  ...englishStopwords,
  ..."please pls thanks thank hi hello hey can need want wanted like would could let know just ok okay yes no when will shall go yet i'd i'm i'll i've don't didn't doesn't haven't hasn't isn't wasn't can't won't".split(
    ' ',
  ),
  // Function words the library's list lacks (ADR 0095).
  ..."us its why does did so we've you've they've we're you're they're it's that's what's there's".split(' '),
]);

/**
 * A small domain-independent synonym table (ADR 0095): everyday English words and two-word verbs
 * mapped to one canonical word before stemming, so a message and a manifest that say the same
 * thing in different words meet. Written from general usage, not from any capability's
 * vocabulary; the same mapping applies to manifests and messages, so it only ever merges words.
 */
const SYNONYMS: Readonly<Record<string, string>> = {
  purchase: 'buy',
  purchased: 'buy',
  purchasing: 'buy',
  reserve: 'book',
  reserved: 'book',
  reservation: 'booking',
  reservations: 'booking',
  nudge: 'remind',
  nudged: 'remind',
  chase: 'remind',
  chased: 'remind',
  authorise: 'approve',
  authorize: 'approve',
  authorised: 'approve',
  authorized: 'approve',
  price: 'cost',
  prices: 'cost',
  priced: 'cost',
  bill: 'invoice',
  bills: 'invoice',
  billed: 'invoiced',
  email: 'send',
  emailed: 'send',
  mail: 'send',
  mailed: 'send',
};
/** Two-word verbs, matched on adjacent raw words before stopwords are dropped. */
const PHRASES: Readonly<Record<string, string>> = {
  'sign off': 'approve',
  'signed off': 'approve',
  'call off': 'cancel',
  'called off': 'cancel',
  'look up': 'find',
  'looked up': 'find',
  'pull up': 'find',
  'set up': 'setup',
};

/**
 * Forms the stemmer cannot relate (irregular verbs) and British spellings, mapped before stemming
 * so paid/pay, sent/send, catalogue/catalog meet.
 */
const LEMMAS: Readonly<Record<string, string>> = {
  paid: 'pay',
  spent: 'spend',
  sent: 'send',
  bought: 'buy',
  flew: 'fly',
  flown: 'fly',
  flights: 'flight',
  owed: 'owe',
  catalogue: 'catalog',
  catalogues: 'catalog',
  centre: 'center',
  centres: 'center',
  licence: 'license',
  licences: 'license',
  cancelled: 'cancel',
  cancelling: 'cancel',
};

/**
 * Stems of words seen lately (ADR 0376): a node routes messages in the same few hundred words over
 * and over, and Porter2 is a third of the classifier's time. Pure (same word, same stem), so
 * remembering changes no answer; bounded in entries (the oldest goes first).
 */
const STEMS = new Map<string, string>();
export const STEM_MEMO_MAX_ENTRIES = 20_000;
/**
 * Longer "words" are kept as they are, never stemmed (ADR 0376): no capability is named by one,
 * and the stemmer's time grows with the square of a word's length (a 2,000-letter word took 77 ms,
 * 20,000 letters 7 s), so one long word in a message would hold the node. Manifests and messages
 * pass the same rule, so such a word still matches itself.
 */
export const STEM_MAX_WORD = 64;

/** Words the stem memo holds now (tests). */
export const stemMemoSize = () => STEMS.size;

/**
 * The stem of one lowercase word: irregular forms first, then the nominal suffix -ment (payment →
 * pay, reimbursement → reimburse, which Porter2 keeps apart from their verbs), then Porter2.
 */
export function stem(word: string): string {
  if (word.length > STEM_MAX_WORD) return word;
  const known = STEMS.get(word);
  if (known !== undefined) return known;
  const s = stemOnce(word);
  // A caller sending ever new words only turns the oldest out.
  if (STEMS.size >= STEM_MEMO_MAX_ENTRIES) STEMS.delete(STEMS.keys().next().value!);
  STEMS.set(word, s);
  return s;
}

/** The table's own entry: a word like "constructor" must not find Object's (a message with it threw). */
const own = (table: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

function stemOnce(word: string): string {
  let w = own(SYNONYMS, word) ?? word;
  w = own(LEMMAS, w) ?? w;
  if (w.length >= 8 && w.endsWith('ments')) w = w.slice(0, -5);
  else if (w.length >= 7 && w.endsWith('ment')) w = w.slice(0, -4);
  return porter2(w);
}

/**
 * A token is an identifier when it holds a digit (INV-20931, 4410, Q3, 3pm): it names an
 * instance, a date or an amount, never a capability.
 */
const isIdentifier = (token: string) => /\d/.test(token);

/**
 * Spelled-out dates and times ("last month", "next Tuesday", "the end of the month", "two weeks
 * ago", "October", "tomorrow") name when, never what: like numbers they are dropped, from
 * manifests and messages alike (ADR 0096). "may" goes with the months: as a verb it names no
 * capability either. A period word alone stays ("month-end close", "monthly statement").
 */
const DAY_OR_MONTH = new Set(
  'monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun january february march april june may july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec today tomorrow yesterday tonight'.split(
    ' ',
  ),
);
const RELATIVE = new Set('last next this coming previous past current every each following'.split(' '));
const PERIOD = /^(?:day|week|weekend|month|quarter|year|morning|afternoon|evening|night|fortnight|period)s?$/;
const COUNT = new Set('a an one two three four five six seven eight nine ten few couple several'.split(' '));
const EDGE = new Set('end start beginning middle'.split(' '));

/** Which of `words` belong to a date or time expression. */
function dateMask(words: readonly string[]): boolean[] {
  const mask = words.map((w) => DAY_OR_MONTH.has(w));
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    // last/next/this … week, month, Friday
    if (RELATIVE.has(w) && i + 1 < words.length && (PERIOD.test(words[i + 1]) || DAY_OR_MONTH.has(words[i + 1]))) {
      mask[i] = mask[i + 1] = true;
    }
    // two weeks ago, a few days ago
    if (w === 'ago') {
      mask[i] = true;
      for (let j = i - 1; j >= 0 && j >= i - 3 && (PERIOD.test(words[j]) || COUNT.has(words[j])); j--) mask[j] = true;
    }
    // the end / start of the month (…of next year)
    if (EDGE.has(w) && words[i + 1] === 'of') {
      let j = i + 2;
      while (j < words.length && (words[j] === 'the' || RELATIVE.has(words[j]))) j++;
      if (j < words.length && PERIOD.test(words[j])) for (let k = i; k <= j; k++) mask[k] = true;
    }
  }
  // Tuesday morning, tomorrow night
  for (let i = 0; i + 1 < words.length; i++) if (mask[i] && PERIOD.test(words[i + 1])) mask[i + 1] = true;
  return mask;
}

/** Raw lowercase word tokens: letters, digits, apostrophes and inner hyphens kept together. */
export function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

/**
 * Stems of the content words, in order. Identifiers (anything with a digit), spelled-out dates
 * ("next Friday", "the end of the month") and stopwords are dropped; hyphenated words without
 * digits split into their parts (month-end → month, end).
 */
export function terms(text: string): string[] {
  const words: string[] = [];
  for (const token of tokens(text)) {
    if (isIdentifier(token)) continue;
    for (const raw of token.replace(/’/g, "'").split('-')) words.push(raw);
  }
  const dates = dateMask(words);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (dates[i]) continue;
    const phrase = i + 1 < words.length ? own(PHRASES, `${words[i]} ${words[i + 1]}`) : undefined;
    if (phrase !== undefined) {
      out.push(stem(phrase));
      i++;
      continue;
    }
    const raw = words[i];
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    const word = raw.endsWith("'s") ? raw.slice(0, -2) : raw;
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

/**
 * The text of an example without the names in it (ADR 0360): a capitalised word that does not
 * open a sentence ("Northwind", "Maria's", "London") names a value the example happens to use, a
 * supplier, a person, a place, not what the capability does; a new message naming the same value
 * is no evidence for the capability. Words in capitals (PO, IBAN, EUR) and words that open a
 * sentence are kept, and so is any word whose stem `keep` holds (the capability's own words).
 */
export function withoutNames(text: string, keep: ReadonlySet<string>): string {
  return text.replace(/\p{Lu}\p{Ll}+(?:['’]\p{Ll}+)?(?![\p{L}\p{N}])/gu, (word: string, offset: number) => {
    if (offset > 0 && /[\p{L}\p{N}'’-]/u.test(text[offset - 1])) return word; // inside a longer token (McDonald, e-Mail)
    let i = offset - 1;
    while (i >= 0 && /\s/.test(text[i])) i--;
    if (i < 0 || '.!?:;'.includes(text[i])) return word; // opens a sentence
    return terms(word).every((t) => keep.has(t)) ? word : ' ';
  });
}

/** Adjacent term pairs, `a b`: how multi-word routing terms ("cut a PO", "credit memo") match. */
export function bigrams(stems: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < stems.length; i++) out.push(`${stems[i - 1]} ${stems[i]}`);
  return out;
}

/**
 * Words that open a question about how things stand ("has the PO been approved", "when did we pay
 * Acme", "which hotel am I staying at"), as opposed to a request to do something ("book me a
 * flight", "can you cancel the trip", "how do I claim this back") (ADR 0198).
 */
const STATE_OPENERS = new Set(
  "what what's whats when where where's wheres which who whose has hasn't have haven't had did didn't does doesn't do is isn't are aren't was wasn't were weren't am any".split(
    ' ',
  ),
);
/** `how` opens a state question only with a measure: how much, how many, how far, how long. */
const HOW_MEASURES = new Set('much many far long'.split(' '));
/** An opener followed by one of these asks someone to act ("do you …", "can you …"): a request. */
const ADDRESSEE = new Set('you u'.split(' '));

/**
 * Whether any clause of the message asks how something stands. Clauses split at punctuation and
 * at "and"/"but"; a clause is a state question when it opens with a question word or an inverted
 * auxiliary (has, did, is, …) that is not addressed to the assistant ("do you", "can you").
 */
export function asksAboutState(text: string): boolean {
  for (const clause of text
    .toLowerCase()
    .replace(/’/g, "'")
    .split(/[,.;:?!]|\band\b|\bbut\b/)) {
    const words = clause.match(/[\p{L}\p{N}']+/gu) ?? [];
    if (words.length < 2) continue;
    const first = words[0] ?? '';
    const second = words[1] ?? '';
    if (first === 'how') {
      if (HOW_MEASURES.has(second)) return true;
      continue;
    }
    if (STATE_OPENERS.has(first) && !ADDRESSEE.has(second)) return true;
  }
  return false;
}

/**
 * Third-person verbs a capability's description opens with when it reports how things stand
 * ("Finds a supplier invoice…", "Shows your upcoming trips…", "Tells whether a payment…"). A
 * description that opens with any other verb ("Books…", "Schedules…", "Sends…") acts (ADR 0198).
 */
const REPORTING_VERBS = new Set(
  'answers calculates checks compares counts describes displays estimates explains fetches finds gives lists looks reads reports retrieves returns searches shows summarises summarizes tells tracks'.split(
    ' ',
  ),
);

/** Whether a capability acts (changes something) rather than reports, judged from its description's first word. */
export function describesAction(description: string): boolean {
  const first = tokens(description)[0];
  return first !== undefined && !REPORTING_VERBS.has(first);
}
