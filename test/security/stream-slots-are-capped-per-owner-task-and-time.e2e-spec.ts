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
 */
import { mintA2AToken } from '@cp/auth';
import { A2AEndpoints } from '../../apps/agent-node/src/a2a-endpoints';
import { bearer, startSecurityStack, type Json, type SecurityStack } from './support/stack';
import { until } from '../support/until';

const IDLE_MS = 15_000;

describe('stream slots are capped per owner, per task and in time (issue 27 item 2)', () => {
  let stack: SecurityStack;
  let partner: string;
  const held: { name: string; res: Response }[] = [];

  beforeAll(async () => {
    stack = await startSecurityStack(
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
    partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
  });
  afterAll(async () => {
    for (const h of held) await h.res.body?.cancel().catch(() => undefined);
    await stack?.close();
  });

  const openStreams = () => stack.node.get(A2AEndpoints).server!.service.openStreams;
  const headers = (token?: string, version = '1.0') => ({
    'content-type': 'application/json',
    'a2a-version': version,
    ...(token ? bearer(token) : {}),
  });
  /** A task that waits for input (the router asks which capability was meant). */
  const waitingTask = async (token?: string): Promise<string> => {
    const res = await fetch(`${stack.nodeUrl}/a2a/rest/message:send`, {
      method: 'POST',
      headers: headers(token),
      body: JSON.stringify({
        message: { messageId: `w-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'what is the status of my invoice?' }] },
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

    // Token holders are not starved: a streamed message runs to its end.
    const streamed = await fetch(`${stack.nodeUrl}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: headers(partner),
      body: JSON.stringify({
        message: { messageId: 'partner-stream', role: 'ROLE_USER', parts: [{ text: 'status of invoice INV-20931' }] },
      }),
    });
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('TASK_STATE_COMPLETED');
  });

  it('caps one authenticated owner, and holds the anonymous pool apart from it', async () => {
    const tasks = [await waitingTask(partner), await waitingTask(partner)];
    for (const t of tasks) for (let i = 0; i < 3; i++) hold(`partner ${t} ${i}`, await subscribeRest(t, partner));
    const third = await waitingTask(partner);
    const refused = await subscribeRest(third, partner);
    expect(refused.status).toBe(429);
    expect(await reasonOf(refused)).toBe('TOO_MANY_STREAMS_FOR_CALLER');
    expect(openStreams()).toBe(10);
  });

  it(
    'ends every held stream after the idle timeout with a final error event in its binding shape, and frees the slots',
    async () => {
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
    },
    IDLE_MS * 4,
  );

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
