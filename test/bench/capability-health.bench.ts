/**
 * Hot-path cost of counting outcomes and latency (issue 32, ADR 0310). Run: npm run bench capability-health
 * One in-process A2AService (in-memory task store and events, the finance example's bundle, a
 * handler that completes at once) answers SendMessage three ways, interleaved in one run:
 *   bare    — no usage sink (the floor: everything but counting),
 *   calls   — the usage counter before issue 32 (calls only, as main counted),
 *   health  — the usage counter with outcomes and latency buckets (this change).
 * Reports per-call p50/p95 (µs) and the ratios to the floor. The machine may be shared: read the
 * same-run ratios, not the absolute figures.
 */
import { buildNodeBundle, financeAgentExample } from '@cp/capabilities';
import { ActiveBundle, A2AService, HandlerRegistry, InMemoryTaskEvents, InMemoryTaskStore, ToolGateway, UsageCounter } from '@cp/node-sdk';
import type { UsageSink } from '@cp/node-sdk';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const finance = financeAgentExample();
const bundle = new ActiveBundle(
  buildNodeBundle({ agentId: 'finance-agent', revision: 1, agent: finance.agent, manifests: finance.manifests, previewTenants: [] }),
);
const WARMUP = 300;
const ROUNDS = 6;
const PER_ROUND = 300;

function service(usage: UsageSink | undefined): A2AService {
  return new A2AService({
    bundle: () => bundle,
    handlers: new HandlerRegistry().register('invoices.v1.lookup', async () => ({ state: 'completed', artifacts: [] })),
    tasks: new InMemoryTaskStore(),
    events: new InMemoryTaskEvents(),
    tools: new ToolGateway({ exchange: () => Promise.reject(new Error('no tools')) }, new Map(), silent),
    log: silent,
    usage,
  });
}

const callsOnly = new UsageCounter();
const withHealth = new UsageCounter();
const variants: [string, A2AService][] = [
  ['bare', service(undefined)],
  ['calls', service({ record: (c, t) => callsOnly.record(c, t) })],
  ['health', service({ record: (c, t) => withHealth.record(c, t), outcome: (c, t, o, s) => withHealth.outcome(c, t, o, s * 1000) })],
];

let n = 0;
const send = (svc: A2AService) =>
  svc.sendMessage(
    {
      message: { messageId: `m-${n++}`, role: 'ROLE_USER', parts: [{ text: 'Look up invoice INV-20931' }] },
      metadata: { skillId: 'invoice-lookup' },
    },
    { caller: null },
    [],
  );

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

async function main() {
  for (const [, svc] of variants) for (let i = 0; i < WARMUP; i++) await send(svc);
  const samples = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, svc] of round % 2 ? [...variants].reverse() : variants) {
      for (let i = 0; i < PER_ROUND; i++) {
        const t = process.hrtime.bigint();
        await send(svc);
        samples.get(name)!.push(Number(process.hrtime.bigint() - t) / 1000);
      }
      // A window closes now and then on a node: drain so the counters stay a window's size.
      callsOnly.drain();
      withHealth.drain();
    }
  }
  const bare = samples.get('bare')!;
  console.log(`SendMessage in process, ${ROUNDS} × ${PER_ROUND} calls per variant, interleaved`);
  console.log('variant | p50 µs | p95 µs | p50 / bare | p95 / bare');
  for (const [name] of variants) {
    const xs = samples.get(name)!;
    console.log(
      `${name} | ${pct(xs, 0.5).toFixed(1)} | ${pct(xs, 0.95).toFixed(1)} | ${(pct(xs, 0.5) / pct(bare, 0.5)).toFixed(3)} | ${(pct(xs, 0.95) / pct(bare, 0.95)).toFixed(3)}`,
    );
  }
}

void main();
