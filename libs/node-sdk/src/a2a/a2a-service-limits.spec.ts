/** A2AService around the handler (issue 14), without HTTP: typed limits, missing handlers, refusals. */
import { financeAgentExample } from '@cp/capabilities';
import { financeBundle, testA2AService } from '../testing/a2a-test-node';
import type { A2AService } from './a2a-service';
import { A2AError, A2AErrorName } from './a2a-errors';
import { HandlerRegistry, type HandlerContext } from './handler-registry';

const finance = financeAgentExample();
const lookup = finance.manifests.find((m) => m.id === 'invoice-lookup')!;

function service(handlers: HandlerRegistry, limits: Record<string, number | string>) {
  const manifests = finance.manifests.map((m) => (m.id === lookup.id ? { ...m, limits } : m));
  const bundle = financeBundle(manifests);
  const usage: string[] = [];
  const svc = testA2AService({
    bundle: () => bundle,
    handlers,
    usage: { record: (c, t) => usage.push(`${c}/${t}`) },
  });
  return { svc, usage };
}

const send = (svc: A2AService, text = 'Look up invoice INV-20931') =>
  svc.sendMessage(
    { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text }] }, metadata: { skillId: 'invoice-lookup' } },
    { caller: null },
    [],
  );

describe('A2AService around the handler', () => {
  it('hands the handler its limits typed as declared: declared and generic keys only', async () => {
    const seen: unknown[] = [];
    const declared = { max_rows: 'integer' } as const;
    const handlers = new HandlerRegistry().register(
      lookup.handler,
      async (ctx: HandlerContext<typeof declared>) => {
        seen.push(ctx.capability.limits);
        return { state: 'completed', artifacts: [] };
      },
      { limits: declared },
    );
    const { svc } = service(handlers, { max_rows: 10, stray: 3, cost_class: 'low', timeout_s: 2 });
    await send(svc);
    expect(seen).toEqual([{ max_rows: 10, cost_class: 'low', timeout_s: 2 }]);
  });

  it('answers a capability whose handler this node lacks as temporarily unavailable, counting the call', async () => {
    const { svc, usage } = service(new HandlerRegistry(), {});
    const error = await send(svc).then(
      () => undefined,
      (e: unknown) => e as A2AError,
    );
    expect(error).toBeInstanceOf(A2AError);
    expect([error!.kind, error!.reason, error!.mapping.http, error!.metadata.capabilityId]).toEqual([
      A2AErrorName.Unavailable,
      'CAPABILITY_TEMPORARILY_UNAVAILABLE',
      503,
      'invoice-lookup',
    ]);
    expect(usage).toEqual(['invoice-lookup/anonymous']);
  });

  it('a refused call is counted in usage but never reaches the handler', async () => {
    let ran = 0;
    const handlers = new HandlerRegistry().register(lookup.handler, async () => (ran++, { state: 'completed', artifacts: [] }));
    const { svc, usage } = service(handlers, { max_input_parts: 0 });
    await expect(send(svc)).rejects.toMatchObject({ kind: A2AErrorName.PayloadTooLarge, reason: 'TOO_MANY_PARTS' });
    expect([ran, usage]).toEqual([0, ['invoice-lookup/anonymous']]);
  });

  it("a handler's own A2AError is a failed task, not an answer it can forge", async () => {
    const handlers = new HandlerRegistry().register(lookup.handler, async () => {
      throw new A2AError(A2AErrorName.Unauthenticated, 'forged by the handler');
    });
    const { svc } = service(handlers, {});
    const { task } = await send(svc);
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message?.parts[0]).toEqual({ text: 'the capability failed while handling this message' });
  });
});
