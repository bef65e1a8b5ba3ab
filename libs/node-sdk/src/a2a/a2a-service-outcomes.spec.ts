/** How each routed call ended, counted at the one hook where the outcome is known (ADR 0310). */
import { financeAgentExample } from '@cp/capabilities';
import { LATENCY_BUCKETS } from '@cp/node-protocol';
import { financeBundle, testA2AService } from '../testing/a2a-test-node';
import { UsageCounter } from '../usage/usage-counter';
import type { A2AService } from './a2a-service';
import { HandlerRegistry, type HandlerResult } from './handler-registry';

const finance = financeAgentExample();
const lookup = finance.manifests.find((m) => m.id === 'invoice-lookup')!;

function service(handle: (svc: A2AService, taskId: string) => Promise<HandlerResult>, limits: Record<string, number | string> = {}) {
  const manifests = finance.manifests.map((m) => (m.id === lookup.id ? { ...m, limits } : m));
  const bundle = financeBundle(manifests);
  const counter = new UsageCounter();
  const observed: string[] = [];
  const handlers = new HandlerRegistry().register(lookup.handler, (ctx) => handle(svc, ctx.task.id));
  const svc: A2AService = testA2AService({
    bundle: () => bundle,
    handlers,
    usage: {
      record: (c, t) => counter.record(c, t),
      outcome: (c, t, o, s) => counter.outcome(c, t, o, s * 1000),
    },
    observer: {
      card: () => undefined,
      request: () => undefined,
      routed: () => undefined,
      denied: () => undefined,
      handled: () => undefined,
      outcome: (c, o) => observed.push(`${c}:${o}`),
    },
  });
  return { svc, counter, observed };
}

const send = (svc: A2AService) =>
  svc.sendMessage(
    {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Look up invoice INV-20931' }] },
      metadata: { skillId: 'invoice-lookup' },
    },
    { caller: null },
    [],
  );

const sum = (xs: number[] | undefined) => (xs ?? []).reduce((a, b) => a + b, 0);

const ENDINGS: [string, HandlerResult][] = [
  ['completed', { state: 'completed', artifacts: [] }],
  ['failed', { state: 'failed', text: 'no' }],
  ['rejected', { state: 'rejected', text: 'not mine' }],
  ['inputRequired', { state: 'input-required', text: 'which one?' }],
];

describe('A2AService counts how calls end', () => {
  it.each(ENDINGS)('a call that ends %s is counted once, with one latency sample', async (outcome, result) => {
    const { svc, counter, observed } = service(async () => result);
    await send(svc);
    const [entry] = counter.drain();
    expect(entry).toMatchObject({ capabilityId: 'invoice-lookup', tenant: 'anonymous', count: 1, outcomes: { [outcome]: 1 } });
    expect(Object.values(entry.outcomes!).reduce((a, b) => a + b, 0)).toBe(1);
    expect(entry.latencyMs).toHaveLength(LATENCY_BUCKETS);
    expect(sum(entry.latencyMs)).toBe(1);
    expect(observed).toEqual([`invoice-lookup:${outcome}`]);
  });

  it('a handler that throws is a failed call', async () => {
    const { svc, counter } = service(async () => {
      throw new Error('boom');
    });
    await send(svc);
    expect(counter.drain()[0].outcomes).toMatchObject({ failed: 1, completed: 0 });
  });

  it('a call canceled while its handler ran is counted canceled, not completed', async () => {
    const { svc, counter } = service(async (s, taskId) => {
      // A caller can cancel the task once it is stored: A2A_SEND_STORE_AFTER_MS into the call at the latest (ADR 0397).
      for (let i = 0; i < 400; i++) {
        if (
          await s.getTask({ id: taskId }, { caller: null }).then(
            () => true,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 5));
      }
      await s.cancelTask({ id: taskId }, { caller: null });
      return { state: 'completed', artifacts: [] };
    });
    const { task } = await send(svc);
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
    const [entry] = counter.drain();
    expect(entry.outcomes).toMatchObject({ canceled: 1, completed: 0 });
    expect(sum(entry.latencyMs)).toBe(1);
  });

  it('a call refused by a limit is counted refused, without a latency sample, and its handler never runs', async () => {
    let ran = 0;
    const { svc, counter, observed } = service(async () => (ran++, { state: 'completed', artifacts: [] }), { max_input_parts: 0 });
    await expect(send(svc)).rejects.toMatchObject({ reason: 'TOO_MANY_PARTS' });
    const [entry] = counter.drain();
    expect([ran, entry.count, entry.outcomes?.refused, sum(entry.latencyMs)]).toEqual([0, 1, 1, 0]);
    expect(observed).toEqual(['invoice-lookup:refused']);
  });
});
