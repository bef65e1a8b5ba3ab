/**
 * Issue 27 item 2: one anonymous caller could take every stream slot of a node by subscribing to
 * its own waiting task again and again (each stream open forever), and every other caller's
 * SendStreamingMessage then got 503 TOO_MANY_STREAMS. Now (ADR 0205):
 *   - one task holds at most A2A_MAX_STREAMS_PER_TASK streams (429 TOO_MANY_STREAMS_FOR_TASK);
 *   - all anonymous callers together hold at most A2A_MAX_ANONYMOUS_STREAMS, well below the
 *     node's cap (429 TOO_MANY_ANONYMOUS_STREAMS), so token holders still stream;
 *   - one authenticated owner holds at most A2A_MAX_STREAMS_PER_OWNER (429 TOO_MANY_STREAMS_FOR_CALLER);
 *   - a stream with no event ends after A2A_STREAM_IDLE_TIMEOUT_MS with a final `event: error`
 *     frame in its binding's own error shape (JSON-RPC 1.0 and 0.3, HTTP+JSON 1.0 and 0.3), never
 *     silently, and its slot is free again.
 *
 * A describe factory over a target (./targets.ts, issue 28): in process, and through a gateway node
 * whose reconcile-invoice is served by an `@a2a-js/sdk` upstream. Through the gateway the partner's
 * waiting tasks are the upstream's input-required tasks and its streamed message is relayed from the
 * upstream, so the caps and the idle timeout must hold for them just the same; a refused stream
 * sends nothing upstream, and a stream ended by the idle timeout does not cancel the upstream's task.
 * Anonymous callers cannot reach that capability: their tasks are the router's on both targets.
 */
import { mintA2AToken } from '@cp/auth';
import { A2AEndpoints } from '../../../apps/agent-node/src/a2a-endpoints';
import { bearer, type Json, type SecurityStack } from './stack';
import { GATEWAY_CAPABILITY, startTarget, type Target, type TargetKind } from './targets';
import { until } from '../../support/until';

const IDLE_MS = 15_000;

export function streamSlotsAreCapped(kind: TargetKind): void {
  describe(`stream slots are capped per owner, per task and in time (issue 27 item 2), ${kind}`, () => {
    let target: Target;
    let stack: SecurityStack;
    let partner: string;
    const held: { name: string; res: Response }[] = [];

    beforeAll(async () => {
      target = await startTarget(
        kind,
        'streamcaps',
        {
          A2A_MAX_STREAMS: '12',
          A2A_MAX_ANONYMOUS_STREAMS: '4',
          A2A_MAX_STREAMS_PER_OWNER: '6',
          A2A_MAX_STREAMS_PER_TASK: '3',
          A2A_STREAM_IDLE_TIMEOUT_MS: String(IDLE_MS),
        },
        { protocol: { versions: ['1.0', '0.3'] } },
      );
      stack = target.stack;
      partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    });
    afterAll(async () => {
      for (const h of held) await h.res.body?.cancel().catch(() => undefined);
      await target?.close();
    });

    const openStreams = () => stack.node.get(A2AEndpoints).server!.service.openStreams;
    const headers = (token?: string, version = '1.0') => ({
      'content-type': 'application/json',
      'a2a-version': version,
      ...(token ? bearer(token) : {}),
    });
    /** Through the gateway the partner's messages go to the upstream's capability (anonymous callers cannot reach it). */
    const throughUpstream = (token?: string) => kind === 'gateway' && token !== undefined;
    const userMessage = (messageId: string, text: string, upstreamText: string, token?: string) => ({
      messageId,
      role: 'ROLE_USER',
      parts: [{ text: throughUpstream(token) ? upstreamText : text }],
      ...(throughUpstream(token) ? { metadata: { skillId: GATEWAY_CAPABILITY } } : {}),
    });
    const mark = () => target.upstream?.seen.length ?? 0;
    /** What reached the upstream since `from` (always nothing in process). */
    const upstreamSince = (from: number) => target.upstream?.seen.slice(from) ?? [];
    /**
     * A task that waits for input: the router asks which capability was meant; through the gateway,
     * a partner's task is the upstream's ("ask me" → input-required).
     */
    const waitingTask = async (token?: string): Promise<string> => {
      const res = await fetch(`${stack.nodeUrl}/a2a/rest/message:send`, {
        method: 'POST',
        headers: headers(token),
        body: JSON.stringify({
          message: userMessage(`w-${Math.random()}`, 'what is the status of my invoice?', 'reconcile INV-7, ask me which PO', token),
        }),
      });
      const task = ((await res.json()) as Json).task as Json;
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      return task.id as string;
    };
    const subscribeRest = (taskId: string, token?: string) =>
      fetch(`${stack.nodeUrl}/a2a/rest/tasks/${taskId}:subscribe`, { method: 'POST', headers: headers(token) });
    const reasonOf = async (res: Response) => {
      const body = (await res.json()) as Json;
      return (body.error?.details ?? body.error?.data ?? body.data)?.[0]?.reason as string;
    };
    const hold = (name: string, res: Response) => {
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      held.push({ name, res });
    };

    it('refuses a fourth stream on one task, and the anonymous pool past its cap, while token holders still stream', async () => {
      // The flood: one anonymous caller, its own waiting task, subscribed to again and again.
      const first = await waitingTask();
      for (let i = 0; i < 3; i++) hold(`anonymous rest ${i}`, await subscribeRest(first));
      const fourth = await subscribeRest(first);
      expect(fourth.status).toBe(429);
      expect(await reasonOf(fourth)).toBe('TOO_MANY_STREAMS_FOR_TASK');
      // A second task: the pool (4) fills before the task cap; the same caller over JSON-RPC 1.0.
      const second = await waitingTask();
      const rpc = await fetch(`${stack.nodeUrl}/a2a/jsonrpc`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ jsonrpc: '2.0', id: 'flood-rpc', method: 'SubscribeToTask', params: { id: second } }),
      });
      hold('anonymous jsonrpc 1.0', rpc);
      for (const attempt of [
        () => subscribeRest(second),
        () =>
          fetch(`${stack.nodeUrl}/a2a/rest/message:stream`, {
            method: 'POST',
            headers: headers(),
            body: JSON.stringify({
              message: { messageId: 'anon-stream', role: 'ROLE_USER', parts: [{ text: 'status of invoice INV-20931' }] },
            }),
          }),
      ]) {
        const refused = await attempt();
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('5');
        expect(await reasonOf(refused)).toBe('TOO_MANY_ANONYMOUS_STREAMS');
      }
      expect(openStreams()).toBe(4);

      // Token holders are not starved: a streamed message runs to its end (through the gateway, the upstream's stream).
      const from = mark();
      const streamed = await fetch(`${stack.nodeUrl}/a2a/rest/message:stream`, {
        method: 'POST',
        headers: headers(partner),
        body: JSON.stringify({
          message: userMessage('partner-stream', 'status of invoice INV-20931', 'reconcile INV-20931 please', partner),
        }),
      });
      expect(streamed.status).toBe(200);
      expect(await streamed.text()).toContain('TASK_STATE_COMPLETED');
      expect(upstreamSince(from).map((r) => r.method)).toEqual(kind === 'gateway' ? ['SendStreamingMessage'] : []);
    });

    it('caps one authenticated owner, and holds the anonymous pool apart from it', async () => {
      const tasks = [await waitingTask(partner), await waitingTask(partner)];
      for (const t of tasks) for (let i = 0; i < 3; i++) hold(`partner ${t} ${i}`, await subscribeRest(t, partner));
      const third = await waitingTask(partner);
      const from = mark();
      const refused = await subscribeRest(third, partner);
      expect(refused.status).toBe(429);
      expect(await reasonOf(refused)).toBe('TOO_MANY_STREAMS_FOR_CALLER');
      expect(openStreams()).toBe(10);
      // Through the gateway the partner's tasks were the upstream's, and the refused stream sent it nothing.
      expect(target.upstream?.asked.length ?? 0).toBe(kind === 'gateway' ? 3 : 0);
      expect(upstreamSince(from)).toEqual([]);
    });

    it(
      'ends every held stream after the idle timeout with a final error event in its binding shape, and frees the slots',
      async () => {
        const canceledBefore = target.upstream?.canceled.length ?? 0;
        const texts = await Promise.all(held.map(async (h) => ({ name: h.name, text: await h.res.text() })));
        for (const { name, text } of texts) {
          const frames = text.trim().split('\n\n');
          const last = frames[frames.length - 1].split('\n');
          expect([name, last[0]]).toEqual([name, 'event: error']);
          const body = JSON.parse(last[1].slice('data: '.length)) as Json;
          if (name.includes('jsonrpc')) {
            expect(body).toMatchObject({ jsonrpc: '2.0', id: 'flood-rpc', error: { code: -32000 } });
            expect(body.error.data[0]).toMatchObject({ reason: 'STREAM_IDLE_TIMEOUT', metadata: { limitMs: String(IDLE_MS) } });
          } else {
            expect(body.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
            expect(body.error.details[0].reason).toBe('STREAM_IDLE_TIMEOUT');
          }
        }
        held.length = 0;
        await until('every slot free', () => openStreams() === 0, 10_000);
        // Ending a stream ends the caller's view, not the task: the upstream's tasks were not canceled.
        expect(target.upstream?.canceled.length ?? 0).toBe(canceledBefore);
      },
      IDLE_MS * 4,
    );

    if (kind === 'gateway') {
      it(
        "ends a relayed stream of an upstream task that stays working after the idle timeout, frees its slot, and leaves the upstream's task running",
        async () => {
          const from = mark();
          const canceledBefore = target.upstream!.canceled.length;
          const res = await fetch(`${stack.nodeUrl}/a2a/rest/message:stream`, {
            method: 'POST',
            headers: headers(partner),
            body: JSON.stringify({ message: userMessage('partner-hold', 'unused', 'reconcile INV-9, hold it', partner) }),
          });
          expect(res.status).toBe(200);
          const frames = (await res.text()).trim().split('\n\n');
          const first = JSON.parse(
            frames[0]
              .split('\n')
              .find((l) => l.startsWith('data: '))!
              .slice('data: '.length),
          ) as Json;
          const taskId = first.task.id as string;
          const last = frames[frames.length - 1].split('\n');
          expect(last[0]).toBe('event: error');
          expect((JSON.parse(last[1].slice('data: '.length)) as Json).error.details[0].reason).toBe('STREAM_IDLE_TIMEOUT');
          await until('every slot free', () => openStreams() === 0, 10_000);
          expect(upstreamSince(from).map((r) => r.method)).toEqual(['SendStreamingMessage']);
          expect(target.upstream!.canceled.length).toBe(canceledBefore);
          // The task is still the caller's to end: a cancel reaches the upstream (after the node answers).
          const canceled = await fetch(`${stack.nodeUrl}/a2a/rest/tasks/${taskId}:cancel`, { method: 'POST', headers: headers(partner) });
          expect(((await canceled.json()) as Json).status.state).toBe('TASK_STATE_CANCELED');
          await until('the upstream got CancelTask', () => target.upstream!.canceled.length === canceledBefore + 1, 30_000);
        },
        IDLE_MS * 4,
      );
    }

    it(
      'ends 0.3 streams the same way, in the 0.3 error shapes (JSON-RPC envelope; HTTP+JSON {code, message, data})',
      async () => {
        const task = await waitingTask();
        const rest03 = await fetch(`${stack.nodeUrl}/a2a/rest/v1/tasks/${task}:subscribe`, {
          method: 'POST',
          headers: headers(undefined, '0.3'),
        });
        const rpc03 = await fetch(`${stack.nodeUrl}/a2a/jsonrpc`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tasks/resubscribe', params: { id: task } }),
        });
        const lastBody = async (res: Response) => {
          expect(res.headers.get('content-type')).toBe('text/event-stream');
          const frames = (await res.text()).trim().split('\n\n');
          const last = frames[frames.length - 1].split('\n');
          expect(last[0]).toBe('event: error');
          return JSON.parse(last[1].slice('data: '.length)) as Json;
        };
        const [rest, rpc] = await Promise.all([lastBody(rest03), lastBody(rpc03)]);
        expect(rest).toMatchObject({ code: -32000 });
        expect(rest.data[0].reason).toBe('STREAM_IDLE_TIMEOUT');
        expect(rpc).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32000 } });
        expect(rpc.error.data[0].reason).toBe('STREAM_IDLE_TIMEOUT');
        await until('every slot free', () => openStreams() === 0, 10_000);
      },
      IDLE_MS * 4,
    );
  });
}
