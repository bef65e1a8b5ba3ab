/**
 * Routing quality and latency (issue 13). Run: npm run bench routing
 * 1. Quality on the labelled back-office set (test/fixtures/routing-eval): the product router,
 *    the router before issue 13 ("today") and plain BM25 over the same fields and tokenizer, on
 *    the held-out half, the tuning half (constants were chosen on it) and the whole (split.yaml),
 *    and the second and third held-out sets (held-out-2.yaml, ADR 0096; held-out-3.yaml, written
 *    blind, ADR 0197), the product router before ADR 0360 ("previous": names in examples counted as
 *    evidence) and the product router without the manifests' routing hints. With
 *    BENCH_EMBEDDINGS=use (and the USE-lite packages installed, test/support/routing-eval/
 *    local-embeddings.ts) also the semantic router (EmbeddingsClassifier over a local
 *    OpenAI-compatible server) and its agreement with the lexical router (measurement only), and
 *    the product router with its clarifications' choices chosen with the embeddings ranking
 *    (SemanticChoicesClassifier, ADR 0361), the same with the embeddings' second opinion that may
 *    turn a route into a clarification (ADR 0362), plus the latency each adds per decision. With
 *    BENCH_CHAT_URL the chat-completions router (ADR 0291) against that endpoint.
 *    BENCH_ROUTING_SETS=tuning,held-out,… limits the quality tables to the named sets (by the
 *    start of their title), e.g. to try a change without looking at the blind third set.
 * 2. Latency of one route() decision over a 2,000-capability router index (the eval set's 25
 *    capabilities plus 1,975 generated ones), today's classifier and the new one interleaved in
 *    one run, with plain BM25 as the bare baseline doing the same ranking work.
 */
import {
  DEFAULT_SECOND_OPINION,
  LexicalClassifier,
  route,
  routeAsync,
  routingTestIndex,
  type Classifier,
  type CapabilityManifest,
  type RouterIndex,
} from '@cp/capabilities';
import { LegacyLexicalClassifier } from '../support/routing-eval/legacy-classifier';
import { EmbeddingsClassifier } from '../../libs/node-sdk/src/routing/embeddings-classifier';
import { ChatCompletionsClassifier } from '../../libs/node-sdk/src/routing/chat-classifier';
import { SemanticChoicesClassifier } from '../../libs/node-sdk/src/routing/semantic-choices';
import { agreement, precomputed, startLocalEmbeddings, useClassifier } from '../support/routing-eval/local-embeddings';
import { PlainBm25Classifier } from '../support/routing-eval/plain-bm25';
import { WordNet } from '../support/routing-eval/wordnet';
import {
  evaluate,
  half,
  loadEvalSet,
  loadSecondHeldOut,
  loadThirdHeldOut,
  renderTable,
  type EvalFigures,
  withoutHints,
  type EvalSet,
} from '../support/routing-eval/routing-eval';

const CAPABILITIES = 2_000;

let opened: WordNet | undefined;
/** One WordNet reader for the run; its opening cost (time, memory) is reported once. */
function wordnet(): WordNet {
  if (opened) return opened;
  const heap = process.memoryUsage().heapUsed + process.memoryUsage().external;
  const t0 = process.hrtime.bigint();
  opened = new WordNet({ senses: 1, derivations: true });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const mb = (process.memoryUsage().heapUsed + process.memoryUsage().external - heap) / 1e6;
  console.log(`WordNet opened in ${ms.toFixed(0)} ms, +${mb.toFixed(1)} MB heap and external (index files held)\n`);
  return opened;
}
const WARMUP = 50;
const ROUNDS = 5;

function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const set = loadEvalSet();
const only = process.env.BENCH_ROUTING_SETS?.split(',').filter((x) => x !== '');
const views: [string, EvalSet][] = (
  [
    ['held-out half', () => half(set, 'held-out')],
    ['tuning half', () => half(set, 'tuning')],
    ['whole set', () => set],
    ['second held-out set', () => loadSecondHeldOut()],
    ['third held-out set', () => loadThirdHeldOut()],
  ] as [string, () => EvalSet][]
)
  .filter(([title]) => !only || only.some((o) => title.startsWith(o)))
  .map(([title, load]) => [title, load()]);

async function quality(): Promise<void> {
  // BENCH_EMBEDDINGS=use: USE-lite served locally; BENCH_EMBEDDINGS_URL (+ _MODEL, _API_KEY): any
  // OpenAI-compatible endpoint, e.g. the model a deployment would configure as EMBEDDINGS_URL.
  const local = process.env.BENCH_EMBEDDINGS === 'use' ? await startLocalEmbeddings() : undefined;
  const endpoint = process.env.BENCH_EMBEDDINGS_URL ?? local?.url;
  try {
    for (const [title, view] of views) {
      console.log(`## Quality on the ${title} (${view.suite.tests.length} messages)\n`);
      const columns: Record<string, EvalFigures> = {
        'route() today': evaluate(view, new LegacyLexicalClassifier()),
        'plain BM25': evaluate(view, new PlainBm25Classifier()),
        // ADR 0360: the router before names in examples stopped counting as evidence.
        'route() previous': evaluate(view, new LexicalClassifier(undefined, { namesInExamples: true })),
        'route() now': evaluate(view, new LexicalClassifier()),
        'route() now, no routing hints': evaluate(withoutHints(view), new LexicalClassifier()),
        // ADR 0290: the expansion chosen on the tuning half (1 sense, derivations, weight 0.1).
        'route() now + WordNet': evaluate(view, new LexicalClassifier(undefined, { expansion: wordnet(), expansionWeight: 0.1 })),
      };
      if (endpoint) {
        const entries = routingTestIndex(view.snapshot, {}).entries;
        const semantic = await precomputed(
          embeddingsFor(endpoint, local !== undefined),
          view.suite.tests.map((t) => t.text ?? ''),
          entries,
        );
        columns[local ? 'semantic (USE-lite)' : 'semantic'] = evaluate(view, semantic);
        columns['lexical + semantic agreement'] = evaluate(view, agreement(new LexicalClassifier(), semantic, 0.1));
        // ADR 0361: the lexical router decides; where it asks, the embeddings ranking helps choose the three.
        const choices = await precomputed(
          new SemanticChoicesClassifier({ ranker: embeddingsFor(endpoint, local !== undefined) }),
          view.suite.tests.map((t) => t.text ?? ''),
          entries,
        );
        columns[local ? 'route() now + semantic choices (USE-lite)' : 'route() now + semantic choices'] = evaluate(view, choices);
        // ADR 0362: the same, and the ranking may turn a route into a clarification (second opinion).
        const opinion = await precomputed(
          new SemanticChoicesClassifier({ ranker: embeddingsFor(endpoint, local !== undefined), secondOpinion: DEFAULT_SECOND_OPINION }),
          view.suite.tests.map((t) => t.text ?? ''),
          entries,
        );
        columns[local ? 'route() now + second opinion (USE-lite)' : 'route() now + second opinion'] = evaluate(view, opinion);
      }
      // BENCH_CHAT_URL (+ _MODEL, _API_KEY, _OUTPUT): the chat-completions router against any
      // OpenAI-compatible endpoint (ADR 0291); skipped when unset. Every message is asked once.
      if (process.env.BENCH_CHAT_URL) {
        const entries = routingTestIndex(view.snapshot, {}).entries;
        const chat = new ChatCompletionsClassifier({
          url: process.env.BENCH_CHAT_URL,
          model: process.env.BENCH_CHAT_MODEL ?? 'gpt-4o-mini',
          apiKey: process.env.BENCH_CHAT_API_KEY,
          output: process.env.BENCH_CHAT_OUTPUT === 'json-schema' ? 'json-schema' : 'tool',
          timeoutMs: 60_000,
          coolDownMs: 0,
        });
        const t0 = process.hrtime.bigint();
        const answered = await precomputed(
          chat,
          view.suite.tests.map((t) => t.text ?? ''),
          entries,
        );
        const perMessage = Number(process.hrtime.bigint() - t0) / 1e6 / Math.max(view.suite.tests.length, 1);
        columns[`chat (${perMessage.toFixed(0)} ms/message)`] = evaluate(view, answered);
      }
      console.log(renderTable(columns));
      console.log();
    }
    if (endpoint) await clarificationLatency(endpoint, local !== undefined);
  } finally {
    local?.server.close();
  }
}

function embeddingsFor(endpoint: string, local: boolean): EmbeddingsClassifier {
  return local
    ? useClassifier(endpoint)
    : new EmbeddingsClassifier({
        url: endpoint,
        model: process.env.BENCH_EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
        apiKey: process.env.BENCH_EMBEDDINGS_API_KEY,
        timeoutMs: 60_000,
      });
}

/**
 * What the embeddings endpoint costs per decision: routeAsync on the labelled set's messages (its
 * 25-capability index), the lexical router alone, with semantic choices (ADR 0361) and with the
 * second opinion (ADR 0362), alternating message by message (the order rotated every round), the
 * capability embeddings cached by a warm-up pass as in a running node. Each message's path is the
 * LEXICAL router's verdict (routed or clarification), so the three are compared on the same
 * messages; the endpoint calls on messages the lexical router routes are counted (semantic choices:
 * expected 0; second opinion: one each).
 */
async function clarificationLatency(endpoint: string, local: boolean): Promise<void> {
  const index = routingTestIndex(set.snapshot, {});
  const caller = { principal: 'bench', tenant: 'routing-test', scopes: [] };
  const embeddings = embeddingsFor(endpoint, local);
  const calls = { choices: 0, opinion: 0 };
  const counted = (name: keyof typeof calls) => ({
    rank: (text: string, candidates: Parameters<EmbeddingsClassifier['rank']>[1]) => {
      calls[name]++;
      return embeddings.rank(text, candidates);
    },
  });
  const lexical = new LexicalClassifier();
  const routers: ['lexical' | 'choices' | 'opinion', Classifier][] = [
    ['lexical', lexical],
    ['choices', new SemanticChoicesClassifier({ ranker: counted('choices') })],
    ['opinion', new SemanticChoicesClassifier({ ranker: counted('opinion'), secondOpinion: DEFAULT_SECOND_OPINION })],
  ];
  const messages = set.suite.tests.map((t) => ({ messageId: 'bench', role: 'ROLE_USER', parts: [{ text: t.text ?? '' }] }));
  const timed = async (classifier: Classifier, m: (typeof messages)[number]) => {
    const t0 = process.hrtime.bigint();
    const r = await routeAsync(m, caller, index, { classifier });
    return { ms: Number(process.hrtime.bigint() - t0) / 1e6, kind: r.kind };
  };
  const lexicalPath: ('ask' | 'route')[] = [];
  for (const m of messages) {
    lexicalPath.push((await timed(lexical, m)).kind === 'input-required' ? 'ask' : 'route');
    for (const [, c] of routers.slice(1)) await timed(c, m); // warm-up: capability embeddings cached
  }
  const samples = Object.fromEntries(routers.map(([name]) => [name, { ask: [] as number[], route: [] as number[] }])) as Record<
    (typeof routers)[number][0],
    { ask: number[]; route: number[] }
  >;
  const callsOnRoutes = { choices: 0, opinion: 0 };
  let turnedToAsk = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, m] of messages.entries()) {
      const order = [...routers.slice(round % 3), ...routers.slice(0, round % 3)];
      if (round % 2 === 1) order.reverse();
      for (const [name, c] of order) {
        const before = { ...calls };
        const { ms, kind } = await timed(c, m);
        const path = lexicalPath[i];
        samples[name][path].push(ms);
        if (name !== 'lexical' && path === 'route') callsOnRoutes[name] += calls[name] - before[name];
        if (name === 'opinion' && path === 'route' && kind === 'input-required') turnedToAsk++;
      }
    }
  }
  const q = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
  };
  console.log(
    `## Latency per decision with the embeddings endpoint, ${index.entries.length}-capability index, ${messages.length} messages × ${ROUNDS} rounds, alternating (Node ${process.version})\n`,
  );
  console.log('path = what the lexical router decides for the message\n');
  console.log('| path | router | decisions | p50 ms | p90 ms | p99 ms | p50 vs lexical |');
  console.log('|---|---|--:|--:|--:|--:|--:|');
  const label = { lexical: 'lexical alone', choices: '+ semantic choices', opinion: '+ second opinion' };
  for (const path of ['ask', 'route'] as const) {
    const base = q(samples.lexical[path], 0.5);
    for (const [name] of routers) {
      const xs = samples[name][path];
      console.log(
        `| ${path === 'ask' ? 'clarification' : 'routed'} | ${label[name]} | ${xs.length} | ${q(xs, 0.5).toFixed(3)} | ${q(xs, 0.9).toFixed(3)} | ${q(xs, 0.99).toFixed(3)} | ${(q(xs, 0.5) / base).toFixed(2)}× |`,
      );
    }
  }
  console.log(
    `\nembeddings calls on messages the lexical router routes: semantic choices ${callsOnRoutes.choices}, second opinion ${callsOnRoutes.opinion} (of ${samples.opinion.route.length}; ${turnedToAsk} of them turned into a clarification)\n`,
  );
}

function latency(): void {
  // A 2,000-capability registry: the eval set plus generated capabilities drawing on a shared vocabulary.
  const r = rng(7);
  const WORDS =
    'invoice payment order supplier vendor contract expense report travel hotel flight booking budget ledger account tax payroll asset lease refund credit debit approval request status schedule reconcile export import audit policy claim receipt card statement customer reminder rate currency close journal accrual forecast'.split(
      ' ',
    );
  const pick = () => WORDS[Math.floor(r() * WORDS.length)];
  const generated: CapabilityManifest[] = Array.from({ length: CAPABILITIES - set.snapshot.manifests.length }, (_, i) => ({
    ...set.snapshot.manifests[i % set.snapshot.manifests.length],
    id: `generated-${String(i).padStart(4, '0')}`,
    handler: `generated.v1.h${i}`,
    skill: {
      name: `${pick()} ${pick()} ${pick()}`,
      description: `Handles the ${pick()} and ${pick()} of a ${pick()} for the ${pick()} team, returning the ${pick()}.`,
      tags: [pick(), pick()].filter((t, k, a) => a.indexOf(t) === k),
      examples: [`Please ${pick()} the ${pick()} for ${pick()} INV-${i}.`],
    },
  }));
  const big = { ...set.snapshot, manifests: [...set.snapshot.manifests, ...generated] };
  const index: RouterIndex = routingTestIndex(big, {});
  const messages = set.suite.tests.map((t) => ({ messageId: 'bench', role: 'ROLE_USER', parts: [{ text: t.text ?? '' }] }));
  const caller = { principal: 'bench', tenant: 'routing-test', scopes: [] };

  function timeAll(classifier: Classifier): number[] {
    const samples: number[] = [];
    for (const m of messages) {
      const t0 = process.hrtime.bigint();
      route(m, caller, index, { classifier });
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return samples;
  }

  const columns: [string, Classifier][] = [
    ['route() today', new LegacyLexicalClassifier()],
    ['route() previous', new LexicalClassifier(undefined, { namesInExamples: true })],
    ['route() now', new LexicalClassifier()],
    ['route() now + WordNet', new LexicalClassifier(undefined, { expansion: wordnet(), expansionWeight: 0.1 })],
    ['plain BM25 (bare baseline)', new PlainBm25Classifier()],
  ];
  // Index time: compiling the 2,000 capabilities (first decision over the index) with and without expansion.
  for (const [name, c] of columns) {
    const t0 = process.hrtime.bigint();
    route(messages[0], caller, index, { classifier: c });
    console.log(`first decision (compiles the index), ${name}: ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(0)} ms`);
  }
  const samples = new Map<string, number[]>(columns.map(([n]) => [n, []]));
  for (const [, c] of columns) for (let i = 0; i < WARMUP; i++) route(messages[i % messages.length], caller, index, { classifier: c });
  // Interleaved rounds: the VM's fast and slow phases hit every column alike.
  for (let round = 0; round < ROUNDS; round++) for (const [name, c] of columns) samples.get(name)?.push(...timeAll(c));
  const q = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(s.length * p))];
  };
  const today = q(samples.get('route() today') ?? [], 0.5);
  console.log(
    `\n## Latency per decision, ${index.entries.length}-capability index, ${messages.length} messages × ${ROUNDS} rounds (Node ${process.version})\n`,
  );
  console.log('| router | p50 ms | p90 ms | p99 ms | p50 vs today |');
  console.log('|---|--:|--:|--:|--:|');
  for (const [name] of columns) {
    const xs = samples.get(name) ?? [];
    console.log(
      `| ${name} | ${q(xs, 0.5).toFixed(3)} | ${q(xs, 0.9).toFixed(3)} | ${q(xs, 0.99).toFixed(3)} | ${(q(xs, 0.5) / today).toFixed(2)}× |`,
    );
  }
}

void quality().then(latency);
