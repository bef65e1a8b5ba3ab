/**
 * A clarification is one short turn (issue 31, ADR 0260): the router asks a question a person can
 * answer (at most three choices, best first, by name and one-line description), and a reply on
 * the same task that names a choice routes to it. Pure: the choices are always drawn from the
 * caller's own fitting entitled candidates, so neither the question nor the reply's resolution can
 * name or reach anything else.
 */
import type { RouterEntry } from '../router-index';
import { terms } from './text';

/** Choices offered at most: more is a list to read, not a question to answer. */
export const MAX_CHOICES = 3;
/** A reply longer than this is a new request, not an answer to "which one?" (bounds the matching work too). */
export const REPLY_MAX_CHARS = 500;
/** The one-line description shown per choice is cut here (descriptions can be paragraphs). */
const DESCRIPTION_MAX_CHARS = 120;

/** What an input-required task remembers of its question (task metadata `routing`), for the reply. */
export interface PendingClarification {
  /** Ids offered, in the order they were numbered. Re-checked against the caller's CURRENT index. */
  offered: readonly string[];
  /** The text of the earlier message(s) on the task: a reply that names no choice is routed with it. */
  earlierText: string;
}

const ORDINALS: Record<string, number> = { one: 1, first: 1, '1st': 1, two: 2, second: 2, '2nd': 2, three: 3, third: 3, '3rd': 3 };
const NEGATIONS = new Set(['not', 'none', 'neither', 'nor', "don't", 'dont', 'nothing']);

/** Strips control and format characters, folds width and case, collapses whitespace. */
export function normalizeReply(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

function oneLine(text: string): string {
  const flat = normalizeSpaces(text);
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length <= DESCRIPTION_MAX_CHARS ? sentence : `${sentence.slice(0, DESCRIPTION_MAX_CHARS - 1).trimEnd()}…`;
}

function normalizeSpaces(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The question shown to a person (status message of the input-required task). */
export function clarificationQuestion(choices: readonly RouterEntry[]): string {
  if (choices.length === 0) return 'Which of the things I can do is this for? Please say what you need in other words.';
  const lines = choices.map((e, i) => `${i + 1}. ${normalizeSpaces(e.skill.name) || e.id}: ${oneLine(e.skill.description)}`);
  const intro = choices.length === 1 ? 'Did you mean this?' : 'Which of these did you mean?';
  const answer = choices.length === 1 ? 'Reply "1" or its name' : `Reply with a number (1-${choices.length}) or a name`;
  return `${intro}\n${lines.join('\n')}\n${answer}, or say what you need in other words.`;
}

/**
 * The choice a reply singles out among `offered` (already filtered to the caller's current fitting
 * entitled candidates, in the numbered order), or undefined: then the reply is routed afresh with
 * the earlier text. Accepts the number ("2", "#2", "option 2", "the second one"), the id, the name,
 * or words that name exactly one choice and none of the others.
 */
export function resolveReply(reply: string, offered: readonly RouterEntry[]): RouterEntry | undefined {
  if (offered.length === 0 || reply.length > REPLY_MAX_CHARS) return undefined;
  const text = normalizeReply(reply).replace(/^["'“‘(]+|["'”’).!?]+$/gu, '');
  if (text === '') return undefined;
  const words = text.split(/[\s,;:]+/).filter((w) => w !== '');
  // "not 2", "none of these": an answer that refuses the choices is a new request.
  if (words.some((w) => NEGATIONS.has(w))) return undefined;

  const number = numberOf(words);
  if (number !== undefined) return number >= 1 && number <= offered.length ? offered[number - 1] : undefined;

  const exact = offered.filter((e) => e.id.toLowerCase() === text || normalizeReply(e.skill.name) === text);
  if (exact.length === 1) return exact[0];

  // The id or name as a phrase inside the reply ("the vendor-payment one please").
  const phrase = offered.filter((e) => containsPhrase(text, e.id.toLowerCase()) || containsPhrase(text, normalizeReply(e.skill.name)));
  if (phrase.length === 1) return phrase[0];
  if (phrase.length > 1) return undefined;

  // Words only one choice's name, id or description holds (shared words single nothing out).
  const own = offered.map((e) => new Set(terms(`${e.id.replace(/[-_.]/g, ' ')} ${e.skill.name} ${e.skill.description}`)));
  const said = new Set(terms(text));
  const hits = offered.filter((_, i) => [...said].some((t) => own[i].has(t) && own.every((other, j) => j === i || !other.has(t))));
  return hits.length === 1 ? hits[0] : undefined;
}

/** "2", "#2", "2.", "option 2", "number 2", "the second", "second one", "2nd please". */
function numberOf(words: readonly string[]): number | undefined {
  const filler = new Set(['the', 'one', 'please', 'option', 'choice', 'number', 'no', 'no.', 'nr', 'pick', 'i', 'want', 'take', 'choose']);
  const rest = words.map((w) => w.replace(/^#/, '').replace(/[.)]$/, '')).filter((w) => w !== '' && !filler.has(w));
  // "one" alone is filler above; as the only word it is the number 1.
  if (rest.length === 0 && words.length === 1 && words[0].replace(/[.)]$/, '') === 'one') return 1;
  if (rest.length !== 1) return undefined;
  const w = rest[0];
  if (/^\d{1,6}$/.test(w)) return Number(w);
  return ORDINALS[w];
}

function containsPhrase(text: string, phrase: string): boolean {
  if (phrase.length < 3) return false;
  const at = text.indexOf(phrase);
  if (at < 0) return false;
  const before = at === 0 ? '' : text[at - 1];
  const after = text[at + phrase.length] ?? '';
  const boundary = (c: string) => c === '' || !/[\p{L}\p{N}]/u.test(c);
  return boundary(before) && boundary(after);
}
