/**
 * A2A conformance for an entitled caller routed to a capability, as a describe factory over a
 * target (issue 28): in process, and a gateway node whose reconcile-invoice is served by an
 * official `@a2a-js/sdk` upstream. Everything asserted here is the node's protocol behaviour, not
 * the handler's: bad params (named, nothing stored), unknown and foreign tasks, a terminal task
 * that cannot be canceled or continued, method names, versions, content types, the body limit and
 * hostile message bodies from an entitled caller (never a 5xx). Through a gateway, nothing the node
 * refuses ever reaches the upstream; only well-formed, entitled sends do.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { mintA2AToken } from '@cp/auth';
import { AGENT, bearer, type Json } from './stack';
import { GATEWAY_CAPABILITY, startTarget, type Target, type TargetKind } from './targets';

const SKILL = { skillId: GATEWAY_CAPABILITY };
const msg = (text: string, extra: Json = {}) => ({
  messageId: `m-${randomBytes(4).toString('hex')}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  metadata: SKILL,
  ...extra,
});

export function a2aConformance(kind: TargetKind): void {
  describe(`A2A conformance of a capability's protocol surface, ${kind}`, () => {
    let target: Target;
    let partner: string;
    let colleague: string;
    const rpc = async (method: string, params: unknown, token = partner, version: string | null = '1.0') => {
      const res = await fetch(`${target.stack.nodeUrl}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token), ...(version ? { 'a2a-version': version } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const tasks = async () => (await rpc('ListTasks', {})).body.result.totalSize as number;
    /** Upstream requests since `from` (always none in process). */
    const upstreamSince = (from: number) => target.upstream?.seen.slice(from) ?? [];
    const mark = () => target.upstream?.seen.length ?? 0;

    beforeAll(async () => {
      target = await startTarget(kind, 'conformance');
      partner = mintA2AToken(target.stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run', 'ledger.write'], 600, AGENT);
      colleague = mintA2AToken(target.stack.cpConfig, 'someone@acme-partner', 'acme-partner', ['recon.run', 'ledger.write'], 600, AGENT);
    });
    afterAll(async () => {
      await target?.close();
    });

    it('completes a well-formed send routed to the capability (through a gateway: one upstream request)', async () => {
      const from = mark();
      const r = await rpc('SendMessage', { message: msg('reconcile invoice INV-20931 against the PO') });
      expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(r.body.result.task.artifacts.length).toBeGreaterThan(0);
      expect(upstreamSince(from)).toHaveLength(kind === 'gateway' ? 1 : 0);
    });

    it('refuses malformed params naming the field, storing nothing, sending nothing upstream', async () => {
      const cases: [unknown, string][] = [
        [{ message: msg('x', { parts: [] }) }, 'params.message.parts'],
        [{ message: msg('x', { parts: [{ video: 1 }] }) }, 'params.message.parts[0]'],
        [{ message: msg('x', { role: 'ROLE_AGENT' }) }, 'params.message.role'],
        [{ message: msg('x', { messageId: '' }) }, 'params.message.messageId'],
        [{ message: msg('x'), configuration: { historyLength: -5 } }, 'params.configuration.historyLength'],
        [{ message: msg('x'), configuration: { acceptedOutputModes: 'text/plain' } }, 'params.configuration.acceptedOutputModes'],
        [{}, 'params.message'],
        ['not an object', 'params'],
      ];
      const before = await tasks();
      const from = mark();
      for (const [params, field] of cases) {
        for (const method of ['SendMessage', 'SendStreamingMessage']) {
          const r = await rpc(method, params);
          expect(r.status).toBeLessThan(500);
          expect(r.body.error?.code).toBe(-32602);
          expect(`${r.body.error.message} ${JSON.stringify(r.body.error.data ?? [])}`).toContain(field);
        }
      }
      expect(await tasks()).toBe(before);
      expect(upstreamSince(from)).toEqual([]);
    });

    it('unknown and foreign tasks are TaskNotFound; a terminal task cannot be canceled or continued; the upstream hears none of it', async () => {
      const done = (await rpc('SendMessage', { message: msg('reconcile invoice INV-20931 against the PO') })).body.result.task as Json;
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      const from = mark();
      for (const [method, params] of [
        ['GetTask', { id: 'no-such-task' }],
        ['CancelTask', { id: 'no-such-task' }],
        ['SubscribeToTask', { id: 'no-such-task' }],
      ] as const) {
        expect((await rpc(method, params)).body.error).toMatchObject({ code: -32001, data: [{ reason: 'TASK_NOT_FOUND' }] });
      }
      for (const [method, params] of [
        ['GetTask', { id: done.id }],
        ['CancelTask', { id: done.id }],
        ['SendMessage', { message: msg('more please', { taskId: done.id }) }],
      ] as const) {
        expect((await rpc(method, params, colleague)).body.error).toMatchObject({ code: -32001, data: [{ reason: 'TASK_NOT_FOUND' }] });
      }
      expect((await rpc('CancelTask', { id: done.id })).body.error).toMatchObject({
        code: -32002,
        data: [{ reason: 'TASK_NOT_CANCELABLE' }],
      });
      const again = await rpc('SendMessage', { message: msg('more please', { taskId: done.id }) });
      expect(again.body.error?.code).toBeDefined();
      expect(again.status).toBeLessThan(500);
      const got = await rpc('GetTask', { id: done.id, historyLength: 0 });
      expect(got.body.result).toMatchObject({ id: done.id, status: { state: 'TASK_STATE_COMPLETED' } });
      expect(got.body.result.history ?? []).toEqual([]);
      // The node refuses a terminal continuation itself: the upstream never hears of it.
      expect(upstreamSince(from)).toEqual([]);
    });

    it('method names, versions, content types and the body limit are the node’s answers: nothing it refuses reaches the upstream', async () => {
      const from = mark();
      const params = { message: msg('reconcile invoice INV-20931 against the PO') };
      expect((await rpc('message/send', params)).body.error?.code).toBe(-32601);
      expect((await rpc('Nope', params)).body.error?.code).toBe(-32601);
      expect((await rpc('SendMessage', params, partner, null)).body.error?.code).toBe(-32009);
      expect((await rpc('SendMessage', params, partner, '2.0')).body.error?.code).toBe(-32009);
      const raw = (body: string, type = 'application/json') =>
        fetch(`${target.stack.nodeUrl}/a2a/jsonrpc`, {
          method: 'POST',
          headers: { 'content-type': type, 'a2a-version': '1.0', ...bearer(partner) },
          body,
        });
      const parse = await raw('{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":');
      expect(parse.status).toBeLessThan(500);
      expect(((await parse.json()) as Json).error.code).toBe(-32700);
      const plain = await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }), 'text/plain');
      // The node reads any content type as JSON (the SDK clients differ); the answer does not depend on the handler.
      expect(plain.status).toBe(200);
      expect(((await plain.json()) as Json).result.task.status.state).toBe('TASK_STATE_COMPLETED');
      const huge = await raw(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: msg('x'.repeat(200_000)) } }),
      );
      expect(huge.status).toBe(413);
      const rest = await fetch(`${target.stack.nodeUrl}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', ...bearer(partner) },
        body: JSON.stringify({ message: msg('x'.repeat(200_000)) }),
      });
      expect(rest.status).toBe(413);
      // Only the one well-formed text/plain send reached the upstream.
      expect(upstreamSince(from)).toHaveLength(kind === 'gateway' ? 1 : 0);
    });

    it('HTTP+JSON: a send completes; bad bodies, unknown routes, unknown, foreign and terminal tasks are the node’s answers', async () => {
      const rest = (path: string, init: RequestInit = {}, token = partner) =>
        fetch(`${target.stack.nodeUrl}/a2a/rest${path}`, {
          ...init,
          headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', ...bearer(token) },
        });
      const from = mark();
      const sent = await rest('/message:send', {
        method: 'POST',
        body: JSON.stringify({ message: msg('reconcile invoice INV-20931 against the PO') }),
      });
      expect(sent.status).toBe(200);
      const task = ((await sent.json()) as Json).task as Json;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(upstreamSince(from)).toHaveLength(kind === 'gateway' ? 1 : 0);
      const after = mark();
      const before = await tasks();
      for (const [body, field] of [
        [JSON.stringify({ message: msg('x', { role: 'ROLE_AGENT' }) }), 'message.role'],
        [JSON.stringify({ message: msg('x', { parts: [{ video: 1 }] }) }), 'message.parts[0]'],
        [JSON.stringify([1, 2]), 'params'],
        ['{', 'JSON'],
      ] as const) {
        const res = await rest('/message:send', { method: 'POST', body });
        expect(res.status).toBe(400);
        expect(await res.text()).toContain(field);
      }
      expect((await rest('/tasks/no-such-task')).status).toBe(404);
      expect((await rest('/tasks/no-such-task:cancel', { method: 'POST', body: '{}' })).status).toBe(404);
      expect((await rest(`/tasks/${task.id}`, {}, colleague)).status).toBe(404);
      expect((await rest(`/tasks/${task.id}:cancel`, { method: 'POST', body: '{}' }, colleague)).status).toBe(404);
      const cancel = await rest(`/tasks/${task.id}:cancel`, { method: 'POST', body: '{}' });
      expect(cancel.status).toBe(400);
      expect(await cancel.text()).toContain('TASK_NOT_CANCELABLE');
      expect((await rest(`/tasks/${task.id}:explode`, { method: 'POST', body: '{}' })).status).toBe(404);
      expect(await tasks()).toBe(before);
      expect(upstreamSince(after)).toEqual([]);
    });

    it('streams on both bindings end with the terminal event, each a well-formed frame; a terminal task cannot be subscribed to', async () => {
      const frames = async (url: string, body: unknown): Promise<Json[]> => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0', ...bearer(partner) },
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain('text/event-stream');
        const text = await res.text();
        return text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => JSON.parse(l.slice(5)) as Json);
      };
      const rpcFrames = await frames(`${target.stack.nodeUrl}/a2a/jsonrpc`, {
        jsonrpc: '2.0',
        id: 9,
        method: 'SendStreamingMessage',
        params: { message: msg('reconcile invoice INV-20931 against the PO') },
      });
      expect(rpcFrames.every((f) => f.jsonrpc === '2.0' && f.id === 9 && f.result !== undefined)).toBe(true);
      expect(rpcFrames[0].result.task.id).toBeDefined();
      expect(rpcFrames.at(-1)!.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      expect(rpcFrames.some((f) => f.result.artifactUpdate)).toBe(true);
      const restFrames = await frames(`${target.stack.nodeUrl}/a2a/rest/message:stream`, {
        message: msg('reconcile invoice INV-20931 against the PO'),
      });
      expect(restFrames[0].task.id).toBeDefined();
      expect(restFrames.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      const from = mark();
      const sub = await rpc('SubscribeToTask', { id: rpcFrames[0].result.task.id });
      expect(sub.status).toBeLessThan(500);
      expect(sub.body.error).toMatchObject({ code: -32004 });
      expect(upstreamSince(from)).toEqual([]);
    });

    it('hostile message bodies from an entitled caller never fault the node', async () => {
      const hostile = fc.oneof(
        fc.string({ maxLength: 60 }),
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.constantFrom('\u0000', '\r\nX-Injected: 1', '\u202e', '"}]}', 'reconcile INV-1'),
      );
      const part = fc.oneof(
        hostile.map((text) => ({ text })),
        fc.record({ data: fc.jsonValue({ maxDepth: 4 }) }),
        fc.record({ url: hostile, mediaType: hostile }),
        fc.record({ raw: fc.base64String({ maxLength: 40 }), filename: hostile }),
        fc.jsonValue({ maxDepth: 3 }),
      );
      /** Well-formed envelopes with hostile content: these pass the node's checks and go on to the handler or upstream. */
      const wellFormed = fc.record(
        {
          message: fc.record(
            {
              messageId: fc.uuid(),
              role: fc.constant('ROLE_USER'),
              parts: fc.array(
                fc.oneof(
                  hostile.map((text) => ({ text })),
                  fc.record({ data: fc.dictionary(hostile, fc.jsonValue({ maxDepth: 4 })) }),
                ),
                {
                  minLength: 1,
                  maxLength: 3,
                },
              ),
              metadata: fc.oneof(
                fc.constant(SKILL),
                fc.record({ skillId: fc.constant(GATEWAY_CAPABILITY), x: fc.jsonValue({ maxDepth: 3 }) }),
              ),
            },
            { requiredKeys: ['messageId', 'role', 'parts', 'metadata'] },
          ),
          metadata: fc.dictionary(hostile, fc.jsonValue({ maxDepth: 2 })),
        },
        { requiredKeys: ['message'] },
      );
      /** Anything goes: hostile ids, roles, parts, context and extensions. */
      const malformed = fc.record(
        {
          message: fc.record(
            {
              messageId: fc.oneof(fc.uuid(), hostile),
              role: fc.constantFrom('ROLE_USER', 'ROLE_AGENT', 'user'),
              parts: fc.array(part, { minLength: 1, maxLength: 3 }),
              metadata: fc.oneof(
                fc.constant(SKILL),
                fc.record({ skillId: fc.constant(GATEWAY_CAPABILITY), x: fc.jsonValue({ maxDepth: 3 }) }),
              ),
              contextId: hostile,
              referenceTaskIds: fc.array(hostile, { maxLength: 2 }),
              extensions: fc.array(hostile, { maxLength: 2 }),
            },
            { requiredKeys: ['messageId', 'role', 'parts', 'metadata'] },
          ),
          configuration: fc.record(
            { historyLength: fc.integer({ min: -2, max: 5 }), returnImmediately: fc.boolean() },
            { requiredKeys: [] },
          ),
          metadata: fc.jsonValue({ maxDepth: 2 }),
        },
        { requiredKeys: ['message'] },
      );
      const params = fc.oneof(wellFormed, malformed);
      let answered = 0;
      const from = mark();
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('SendMessage', 'SendStreamingMessage'), params, async (method, p) => {
          const res = await fetch(`${target.stack.nodeUrl}/a2a/jsonrpc`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...bearer(partner) },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: p }),
            signal: AbortSignal.timeout(20_000),
          });
          const text = await res.text();
          if (res.status >= 500) throw new Error(`${method} answered ${res.status}: ${text.slice(0, 300)}`);
          // Every answer is a JSON-RPC result or error (a stream's events each one), never a bare fault.
          expect(text).toMatch(/"(result|error)"/);
          expect(text).not.toMatch(/Internal error|INTERNAL|at [A-Za-z]+ \(/);
          answered++;
        }),
        { numRuns: 60, seed: 2828, endOnFailure: true },
      );
      expect(answered).toBe(60);
      // Through a gateway the well-formed ones went on: the fuzz exercised the upstream path, not only validation.
      if (kind === 'gateway') expect(upstreamSince(from).length).toBeGreaterThan(0);
    });
  });
}
