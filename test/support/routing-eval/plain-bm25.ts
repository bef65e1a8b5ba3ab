/**
 * The baseline of the routing evaluation: textbook BM25 (k1 1.2, b 0.75) over one document per
 * capability (id, name, tags, examples, description concatenated), with the product's tokenizer
 * and the old share confidence s1²/(s1²+s2²). No field weights, no routing terms, no margin rule.
 */
import { terms, type Classifier, type ClassifierResult, type RouterEntry } from '@cp/capabilities';

export class PlainBm25Classifier implements Classifier {
  private readonly docs = new WeakMap<RouterEntry, { tf: Map<string, number>; length: number }>();

  classify(text: string, candidates: readonly RouterEntry[]): ClassifierResult {
    const query = [...new Set(terms(text))];
    if (query.length === 0 || candidates.length === 0) return { id: null, confidence: 0 };
    const docs = candidates.map((c) => this.doc(c));
    const avg = docs.reduce((s, d) => s + d.length, 0) / docs.length || 1;
    const idf = query.map((t) => {
      const df = docs.filter((d) => d.tf.has(t)).length;
      return Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
    });
    const scores = docs.map((d) =>
      query.reduce((s, t, q) => {
        const f = d.tf.get(t) ?? 0;
        return s + (f === 0 ? 0 : (idf[q] * f * 2.2) / (f + 1.2 * (1 - 0.75 + (0.75 * d.length) / avg)));
      }, 0),
    );
    const order = scores.map((s, i) => i).sort((a, b) => scores[b] - scores[a] || (candidates[a].id < candidates[b].id ? -1 : 1));
    const [s1, s2] = [scores[order[0]], scores[order[1]] ?? 0];
    if (s1 <= 0) return { id: null, confidence: 0 };
    return { id: candidates[order[0]].id, confidence: s1 ** 2 / (s1 ** 2 + s2 ** 2) };
  }

  private doc(entry: RouterEntry) {
    let d = this.docs.get(entry);
    if (!d) {
      const words = terms(
        [entry.id.replace(/-/g, ' '), entry.skill.name, ...entry.skill.tags, ...entry.skill.examples, entry.skill.description].join(' '),
      );
      const tf = new Map<string, number>();
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      d = { tf, length: words.length };
      this.docs.set(entry, d);
    }
    return d;
  }
}
