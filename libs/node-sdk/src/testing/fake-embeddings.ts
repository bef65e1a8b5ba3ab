/**
 * A small local OpenAI-compatible embeddings server for specs (real HTTP on 127.0.0.1), with
 * deterministic vectors (hashed bag of stems): no model, same answer on every machine. `mode`
 * makes it misbehave the ways a broken or hostile endpoint does.
 */
import { terms } from '@cp/capabilities';
import { serveJsonLocally } from './local-json-server';

const DIM = 64;
export function fakeVector(text: string): number[] {
  const v = new Array<number>(DIM).fill(0);
  for (const t of terms(text)) {
    let h = 2166136261;
    for (const ch of t) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    v[(h >>> 0) % DIM] += 1;
  }
  return v;
}

/**
 * ok; error (503); slow (answers after 5 s); nan (NaN components); short (one vector missing);
 * garbage (200 with a body that is not JSON); wrong-length (one vector of another dimension);
 * out-of-range (an index past the inputs); huge (a 20,000-component vector).
 */
export type FakeMode = 'ok' | 'slow' | 'nan' | 'short' | 'error' | 'garbage' | 'wrong-length' | 'out-of-range' | 'huge';
export interface FakeEmbeddings {
  url: string;
  /** Every request's `input`, in order. */
  inputs: string[][];
  mode: FakeMode;
  close(): Promise<void>;
}

/** Answers `POST /v1/embeddings` for model `test-embed` with `authorization: Bearer k`; anything else 404. */
export async function fakeEmbeddings(): Promise<FakeEmbeddings> {
  const fake = { inputs: [] as string[][], mode: 'ok' } as FakeEmbeddings;
  const server = await serveJsonLocally((req, body, send) => {
    const { input, model } = JSON.parse(body) as { input: string[]; model: string };
    fake.inputs.push(input);
    if (req.url !== '/v1/embeddings' || model !== 'test-embed' || req.headers.authorization !== 'Bearer k') return send(404, {});
    if (fake.mode === 'error') return send(503, { error: 'overloaded' });
    if (fake.mode === 'garbage') return send(200, '<html>not json');
    const data = input.map((text, index) => ({ index, embedding: fake.mode === 'nan' ? [NaN] : fakeVector(text) }));
    if (fake.mode === 'wrong-length') data[data.length - 1].embedding = [...data[data.length - 1].embedding, 1];
    if (fake.mode === 'out-of-range') data[0].index = data.length;
    if (fake.mode === 'huge') data[0].embedding = new Array<number>(20_000).fill(1);
    const payload = { object: 'list', data: fake.mode === 'short' ? data.slice(1) : data };
    if (fake.mode === 'slow') setTimeout(() => send(200, payload), 5_000).unref();
    else send(200, payload);
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
