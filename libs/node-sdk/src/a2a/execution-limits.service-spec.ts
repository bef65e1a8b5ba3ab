import { Redis } from 'ioredis';
import { A2AError, A2AErrorName } from './a2a-errors';
import { ExecutionLimits, RedisBudgetStore, type LimitedCall } from './execution-limits';

// The machine's real Redis, under a prefix of this run only.
const PREFIX = `test:limits:${process.pid}:${Date.now()}:`;
const redisA = new Redis('redis://127.0.0.1:6379', { lazyConnect: false });
const redisB = new Redis('redis://127.0.0.1:6379', { lazyConnect: false });

afterAll(async () => {
  const keys = await redisA.keys(`${PREFIX}*`);
  if (keys.length) await redisA.del(...keys);
  redisA.disconnect();
  redisB.disconnect();
});

const call = (over: Partial<LimitedCall> = {}): LimitedCall => ({
  agentId: 'finance-agent',
  capabilityId: 'invoice-lookup',
  tenant: 'acme',
  limits: {},
  budgets: undefined,
  message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'INV-1' }] },
  ...over,
});

async function refusal(p: Promise<unknown>): Promise<A2AError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof A2AError) return e;
    throw e;
  }
  throw new Error('expected an A2A error');
}

describe('ExecutionLimits', () => {
  it('fires the abort signal at timeout_s and reports the timeout; the handler is not awaited past it', async () => {
    const limits = new ExecutionLimits();
    let aborted = false;
    const outcome = await limits.run(call({ limits: { timeout_s: 0.05 } }), (signal) => {
      signal.addEventListener('abort', () => (aborted = true));
      return new Promise((resolve) => setTimeout(() => resolve('late'), 2000).unref());
    });
    expect(outcome).toEqual({ timedOut: true });
    expect(aborted).toBe(true);
    expect(limits.inFlight('acme')).toBe(0);
  });

  it('returns the value of a handler that finishes in time', async () => {
    const outcome = await new ExecutionLimits().run(call({ limits: { timeout_s: 5 } }), async () => 'done');
    expect(outcome).toEqual({ timedOut: false, value: 'done' });
  });

  it('refuses a body over max_input_bytes and too many parts before the handler runs', async () => {
    const limits = new ExecutionLimits();
    let ran = false;
    const big = call({
      limits: { max_input_bytes: 100 },
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(500) }] },
    });
    const e1 = await refusal(limits.run(big, async () => (ran = true)));
    expect([e1.kind, e1.reason, e1.metadata.limit]).toEqual([A2AErrorName.PayloadTooLarge, 'INPUT_TOO_LARGE', 'max_input_bytes']);
    expect(e1.message).toMatch(/accepts at most 100/);
    const parts = call({
      limits: { max_input_parts: 1 },
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'a' }, { text: 'b' }] },
    });
    const e2 = await refusal(limits.run(parts, async () => (ran = true)));
    expect(e2.reason).toBe('TOO_MANY_PARTS');
    expect(ran).toBe(false);
  });

  it('refuses a tenant over max_concurrent_tasks with Retry-After; another tenant is unaffected', async () => {
    const limits = new ExecutionLimits();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = limits.run(call({ limits: { max_concurrent_tasks: 1 } }), () => gate);
    const e = await refusal(limits.run(call({ limits: { max_concurrent_tasks: 1 } }), async () => undefined));
    expect([e.kind, e.mapping.http, e.metadata.retryAfterSeconds]).toEqual([A2AErrorName.RateLimited, 429, '1']);
    await expect(limits.run(call({ tenant: 'globex', limits: { max_concurrent_tasks: 1 } }), async () => 'ok')).resolves.toEqual({
      timedOut: false,
      value: 'ok',
    });
    release();
    await first;
    await expect(limits.run(call({ limits: { max_concurrent_tasks: 1 } }), async () => 'again')).resolves.toMatchObject({ value: 'again' });
  });

  it('two replicas sharing Redis admit no more than the budget in total; another tenant keeps its own', async () => {
    const capabilityId = `cap-${Date.now()}`;
    const budgets = { low: { calls: 5, windowS: 60 } };
    const replicas = [new RedisBudgetStore(redisA, PREFIX), new RedisBudgetStore(redisB, PREFIX)].map(
      (budgets) => new ExecutionLimits({ budgets }),
    );
    let handled = 0;
    const attempts = Array.from({ length: 12 }, (_, i) =>
      replicas[i % 2]
        .run(call({ capabilityId, limits: { cost_class: 'low' }, budgets }), async () => handled++)
        .then(
          () => 'ok',
          (e: A2AError) => e,
        ),
    );
    const results = await Promise.all(attempts);
    const refused = results.filter((r): r is A2AError => r instanceof A2AError);
    expect(results.filter((r) => r === 'ok')).toHaveLength(5);
    expect(handled).toBe(5); // never charged to the handler
    expect(refused).toHaveLength(7);
    for (const e of refused) {
      expect(e.kind).toBe(A2AErrorName.RateLimited);
      expect(Number(e.metadata.retryAfterSeconds)).toBeGreaterThanOrEqual(1);
      expect(Number(e.metadata.retryAfterSeconds)).toBeLessThanOrEqual(60);
      expect(e.message).toContain('cost class low: 5 calls per 60 s');
    }
    const other = await replicas[1].run(call({ capabilityId, tenant: 'globex', limits: { cost_class: 'low' }, budgets }), async () => 'x');
    expect(other).toEqual({ timedOut: false, value: 'x' });
    // A class without a budget is not limited.
    await expect(
      replicas[0].run(call({ capabilityId, limits: { cost_class: 'high' }, budgets }), async () => 'free'),
    ).resolves.toMatchObject({ value: 'free' });
  });

  it("keys hostile tenant names safely: braces and colons cannot reach another tenant's counter", async () => {
    const store = new RedisBudgetStore(redisA, PREFIX);
    const limits = new ExecutionLimits({ budgets: store });
    const budgets = { medium: { calls: 1, windowS: 60 } };
    const capabilityId = `hostile-${Date.now()}`;
    await limits.run(call({ capabilityId, tenant: 'acme', limits: { cost_class: 'medium' }, budgets }), async () => 1);
    const hostile = call({ capabilityId, tenant: 'x}:acme', limits: { cost_class: 'medium' }, budgets });
    await expect(limits.run(hostile, async () => 2)).resolves.toMatchObject({ value: 2 });
  });

  it('fails open when the budget store errors or hangs: the node keeps serving without Redis, and says so', async () => {
    const seen: string[] = [];
    const budgets = { low: { calls: 1, windowS: 60 } };
    const broken = new ExecutionLimits({
      budgets: { take: () => Promise.reject(new Error('ECONNREFUSED')) },
      onBudgetUnavailable: (e) => seen.push(e.message),
    });
    const hanging = new ExecutionLimits({
      budgets: { take: () => new Promise(() => undefined) },
      budgetTimeoutMs: 30,
      onBudgetUnavailable: (e) => seen.push(e.message),
    });
    const limited = call({ limits: { cost_class: 'low' }, budgets });
    await expect(broken.run(limited, async () => 'served')).resolves.toEqual({ timedOut: false, value: 'served' });
    await expect(hanging.run(limited, async () => 'served')).resolves.toEqual({ timedOut: false, value: 'served' });
    expect(seen).toEqual(['ECONNREFUSED', 'budget check took over 30 ms']);
  });
});
