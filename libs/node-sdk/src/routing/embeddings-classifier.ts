/**
 * The semantic router (issue 13, ADR 0093): ranks the fitting entitled candidates by cosine
 * similarity between the message's embedding and each capability's, from an OpenAI-compatible
 * `POST {url}/embeddings` the deployment configures. Capability embeddings are cached by the text
 * they were computed from (a new revision that changes a capability's text re-embeds it, one that
 * does not reuses it). When the endpoint is down, slow (timeout) or answers nonsense, the lexical
 * router decides instead, and the endpoint is left alone for a cool-down so callers do not each
 * wait out the timeout.
 */
import { LexicalClassifier, type Classifier, type ClassifierResult, type RankedCandidate, type RouterEntry } from '@cp/capabilities';

export interface EmbeddingsClassifierOptions {
  /** Base URL of the OpenAI-compatible API, e.g. https://llm.internal/v1 (…/embeddings is appended). */
  url: string;
  model: string;
  apiKey?: string;
  /** Per request; past it the lexical router decides. */
  timeoutMs: number;
  /** How long to skip the endpoint after a failure. */
  coolDownMs?: number;
  /** Softmax sharpness over cosine similarities (they sit in a narrow band). */
  sharpness?: number;
  fallback?: Classifier;
  log?: { warn(fields: Record<string, unknown>, message: string): void };
  /** Cached capability embeddings before the oldest are dropped. */
  maxCached?: number;
  now?: () => number;
}

const MAX_INPUT_CHARS = 8000;

/** What a capability is embedded as: everything the router may read, routing terms included. */
export function capabilityText(e: RouterEntry): string {
  return [e.skill.name, e.skill.description, e.skill.tags.join(', '), ...e.skill.examples, ...(e.routing?.terms ?? [])].join('\n');
}

export class EmbeddingsClassifier implements Classifier {
  private readonly fallback: Classifier;
  private readonly cache = new Map<string, Float64Array>();
  private downUntil = 0;

  constructor(private readonly options: EmbeddingsClassifierOptions) {
    this.fallback = options.fallback ?? new LexicalClassifier();
  }

  /** The synchronous path (route()) has no time to ask: the lexical router answers. */
  classify(text: string, candidates: readonly RouterEntry[]): ClassifierResult {
    return this.fallback.classify(text, candidates);
  }

  async classifyAsync(text: string, candidates: readonly RouterEntry[]): Promise<ClassifierResult> {
    if (candidates.length === 0 || text.trim() === '') return this.fallback.classify(text, candidates);
    let scored: RankedCandidate[];
    try {
      scored = await this.rank(text, candidates);
    } catch (error) {
      return this.fellBack(text, candidates, (error as Error).message);
    }
    const sharpness = this.options.sharpness ?? 40;
    const top = scored[0];
    const z = scored.reduce((s, x) => s + Math.exp(sharpness * (x.score - top.score)), 0);
    const confidence = Math.round((1 / z) * 1e3) / 1e3;
    const next = scored[1];
    return {
      id: top.id,
      confidence,
      ranking: scored.slice(0, 5).map((x) => ({ id: x.id, score: Math.round(x.score * 1e3) / 1e3 })),
      plausible: scored
        .filter((x) => x.score >= top.score - 0.05)
        .slice(0, 5)
        .map((x) => x.id),
      reason: `embeddings: "${top.id}" is closest to the message (cosine ${top.score.toFixed(3)}${next ? `, next "${next.id}" ${next.score.toFixed(3)}` : ''})`,
    };
  }

  /**
   * Every candidate by cosine similarity to the message, closest first (ADR 0361 uses it to choose
   * a clarification's choices). Throws, with the reason, while cooling down or when the endpoint
   * fails; a failure starts the cool-down and is logged.
   */
  async rank(text: string, candidates: readonly RouterEntry[]): Promise<RankedCandidate[]> {
    const now = this.options.now ?? Date.now;
    if (candidates.length === 0) return [];
    if (now() < this.downUntil) throw new Error('the embeddings endpoint is cooling down after a failure');
    try {
      const keys = candidates.map((c) => `${c.id}\u0000${capabilityText(c)}`);
      const missing = [...new Set(keys.filter((k) => !this.cache.has(k)))];
      const inputs = [text.slice(0, MAX_INPUT_CHARS), ...missing.map((k) => k.slice(k.indexOf('\u0000') + 1).slice(0, MAX_INPUT_CHARS))];
      const vectors = await this.embed(inputs);
      missing.forEach((k, i) => this.remember(k, vectors[i + 1]));
      const query = vectors[0];
      return candidates
        .map((c, i) => ({ id: c.id, score: cosine(query, this.cache.get(keys[i]) as Float64Array) }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    } catch (error) {
      this.downUntil = now() + (this.options.coolDownMs ?? 30_000);
      this.options.log?.warn({ err: (error as Error).message }, 'embeddings endpoint failed; the lexical router decides');
      throw new Error(`the embeddings endpoint failed (${(error as Error).message})`);
    }
  }

  private fellBack(text: string, candidates: readonly RouterEntry[], why: string): ClassifierResult {
    const r = this.fallback.classify(text, candidates);
    return { ...r, reason: `${why}; lexical fallback: ${r.reason ?? ''}`.trim() };
  }

  private remember(key: string, vector: Float64Array): void {
    const max = this.options.maxCached ?? 20_000;
    if (this.cache.size >= max) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, vector);
  }

  private async embed(input: string[]): Promise<Float64Array[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const res = await fetch(`${this.options.url.replace(/\/+$/, '')}/embeddings`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: this.options.model, input }),
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const body = (await res.json()) as { data?: { embedding?: unknown; index?: unknown }[] };
    // A hostile or broken endpoint: every vector present, numeric, finite, one length, non-zero.
    if (!Array.isArray(body?.data) || body.data.length !== input.length) throw new Error('wrong number of embeddings');
    const out = new Array<Float64Array>(input.length);
    let dim = -1;
    for (const item of body.data) {
      const i = typeof item?.index === 'number' ? item.index : -1;
      const e = item?.embedding;
      if (!Number.isInteger(i) || i < 0 || i >= input.length || out[i] || !Array.isArray(e) || e.length === 0 || e.length > 16_384)
        throw new Error('malformed embeddings response');
      if (dim === -1) dim = e.length;
      if (e.length !== dim || !e.every((x) => typeof x === 'number' && Number.isFinite(x)))
        throw new Error('malformed embeddings response');
      out[i] = Float64Array.from(e as number[]);
    }
    return out;
  }
}

function cosine(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
