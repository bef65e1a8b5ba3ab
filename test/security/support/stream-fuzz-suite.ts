/**
 * Fuzzing stream sequences (issue 27): random interleavings of opening streams (JSON-RPC 1.0,
 * HTTP+JSON 1.0 and 0.3 subscribes, streamed messages), abandoning them, resubscribing to the same
 * task and slow readers (a raw socket that sends its request and never reads), by anonymous and
 * authenticated callers, against small caps. Properties, for every sequence:
 *   - never a 5xx other than the node cap's 503 TOO_MANY_STREAMS; every refusal names its cap;
 *   - open streams never pass the node's cap, and a streamed message either runs to its end or is
 *     refused before it starts;
 *   - once the clients are gone, no stream, slot or task-event listener is left behind.
 * Bounded: RUNS sequences of at most 14 steps, fixed seed.
 *
 * A describe factory over a target (./targets.ts): in process, and through a gateway node whose
 * reconcile-invoice is served by an `@a2a-js/sdk` upstream (issue 28). Through the gateway the
 * partner's streamed messages and waiting tasks are the upstream's (its streams relayed, its
 * input-required tasks subscribed to), so abandoning them must release the node's slots just the same.
 */
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { mintA2AToken } from '@cp/auth';
import { A2AEndpoints } from '../../../apps/agent-node/src/a2a-endpoints';
import { until } from '../../support/until';
import { bearer, type Json, type SecurityStack } from './stack';
import { GATEWAY_CAPABILITY, startTarget, type Target, type TargetKind } from './targets';

const RUNS = 25;
const SEED = 2727;
const CAPS = { node: 6, anonymous: 3, owner: 4, task: 2 };
const REFUSALS = new Set(['TOO_MANY_STREAMS', 'TOO_MANY_ANONYMOUS_STREAMS', 'TOO_MANY_STREAMS_FOR_CALLER', 'TOO_MANY_STREAMS_FOR_TASK']);

type Who = 'anonymous' | 'partner';
type Step =
  | { kind: 'subscribe'; who: Who; binding: 'jsonrpc' | 'rest' | 'rest03'; fresh: boolean }
  | { kind: 'stream'; who: Who }
  | { kind: 'abandon'; pick: number }
  | { kind: 'slow'; who: Who };

const who = fc.constantFrom<Who>('anonymous', 'partner');
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('subscribe' as const),
    who,
    binding: fc.constantFrom('jsonrpc' as const, 'rest' as const, 'rest03' as const),
    fresh: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('stream' as const), who }),
  fc.record({ kind: fc.constant('abandon' as const), pick: fc.nat(50) }),
  fc.record({ kind: fc.constant('slow' as const), who }),
);

export function fuzzStreamSequences(kind: TargetKind): void {
  describe(`fuzzed stream sequences never fault and leave no slot behind (issue 27), ${kind}`, () => {
    let target: Target;
    let stack: SecurityStack;
    let partner: string;
    let steps = 0;
    const statuses = new Map<string, number>();

    beforeAll(async () => {
      target = await startTarget(
        kind,
        'streamfuzz',
        {
          A2A_MAX_STREAMS: String(CAPS.node),
          A2A_MAX_ANONYMOUS_STREAMS: String(CAPS.anonymous),
          A2A_MAX_STREAMS_PER_OWNER: String(CAPS.owner),
          A2A_MAX_STREAMS_PER_TASK: String(CAPS.task),
        },
        { protocol: { versions: ['1.0', '0.3'] } },
      );
      stack = target.stack;
      partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    });
    afterAll(async () => {
      console.log(`stream fuzz (${kind}): ${RUNS} sequences, ${steps} steps, answers ${JSON.stringify(Object.fromEntries(statuses))}`);
      await target?.close();
    });

    /** Through the gateway the partner's messages go to the upstream's capability; anonymous callers cannot reach it. */
    const throughUpstream = (w: Who) => kind === 'gateway' && w === 'partner';
    const userMessage = (w: Who, prefix: string, text: string, upstreamText: string) => ({
      messageId: `${prefix}-${Math.random()}`,
      role: 'ROLE_USER',
      parts: [{ text: throughUpstream(w) ? upstreamText : text }],
      ...(throughUpstream(w) ? { metadata: { skillId: GATEWAY_CAPABILITY } } : {}),
    });

    const server = () => stack.node.get(A2AEndpoints).server!;
    const auth = (w: Who): Record<string, string> => (w === 'partner' ? bearer(partner) : {});
    const waitingTask = async (w: Who): Promise<string> => {
      const res = await fetch(`${stack.nodeUrl}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...auth(w) },
        body: JSON.stringify({ message: userMessage(w, 'w', 'what is the status of my invoice?', 'reconcile INV-7, ask me which PO') }),
      });
      const task = ((await res.json()) as Json).task as Json;
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      return task.id as string;
    };
    const request = (w: Who, binding: 'jsonrpc' | 'rest' | 'rest03', taskId: string, signal: AbortSignal) =>
      binding === 'jsonrpc'
        ? fetch(`${stack.nodeUrl}/a2a/jsonrpc`, {
            method: 'POST',
            signal,
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...auth(w) },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
          })
        : fetch(`${stack.nodeUrl}/a2a/rest${binding === 'rest03' ? '/v1' : ''}/tasks/${taskId}:subscribe`, {
            method: 'POST',
            signal,
            headers: { 'a2a-version': binding === 'rest03' ? '0.3' : '1.0', ...auth(w) },
          });
    /** A refusal: its status and reason, checked; an SSE answer: true. */
    const answer = async (res: Response): Promise<boolean> => {
      statuses.set(String(res.status), (statuses.get(String(res.status)) ?? 0) + 1);
      if (res.status === 200) {
        expect(res.headers.get('content-type')).toBe('text/event-stream');
        return true;
      }
      const body = (await res.json()) as Json;
      const reason = (body.error?.details ?? body.error?.data ?? body.data)?.[0]?.reason as string;
      expect([res.status, REFUSALS.has(reason)]).toEqual([reason === 'TOO_MANY_STREAMS' ? 503 : 429, true]);
      return false;
    };

    it('holds the caps and leaves nothing behind, for every sequence', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (sequence) => {
          const aborts: AbortController[] = [];
          const sockets: Socket[] = [];
          const tasks: Record<Who, string[]> = { anonymous: [], partner: [] };
          const taskFor = async (w: Who, fresh: boolean) => {
            if (fresh || tasks[w].length === 0) tasks[w].push(await waitingTask(w));
            return tasks[w][tasks[w].length - 1];
          };
          try {
            for (const s of sequence) {
              steps++;
              if (s.kind === 'subscribe') {
                const abort = new AbortController();
                const res = await request(s.who, s.binding, await taskFor(s.who, s.fresh), abort.signal);
                if (await answer(res)) aborts.push(abort);
              } else if (s.kind === 'stream') {
                const res = await fetch(`${stack.nodeUrl}/a2a/rest/message:stream`, {
                  method: 'POST',
                  headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...auth(s.who) },
                  body: JSON.stringify({ message: userMessage(s.who, 's', 'status of invoice INV-20931', 'reconcile INV-8 please') }),
                });
                if (await answer(res)) expect(await res.text()).toContain('TASK_STATE_COMPLETED');
              } else if (s.kind === 'abandon') {
                if (aborts.length > 0) aborts.splice(s.pick % aborts.length, 1)[0].abort();
              } else {
                // A slow reader: the request goes out, nothing is ever read.
                const socket = connect(Number(new URL(stack.nodeUrl).port), '127.0.0.1');
                sockets.push(socket);
                socket.on('error', () => undefined);
                await new Promise((r) => socket.once('connect', r));
                socket.pause();
                const id = await taskFor(s.who, false);
                const headers = Object.entries({ host: '127.0.0.1', 'a2a-version': '1.0', ...auth(s.who) })
                  .map(([k, v]) => `${k}: ${v}\r\n`)
                  .join('');
                socket.write(`POST /a2a/rest/tasks/${id}:subscribe HTTP/1.1\r\n${headers}content-length: 0\r\n\r\n`);
              }
              expect(server().service.openStreams).toBeLessThanOrEqual(CAPS.node);
            }
          } finally {
            for (const a of aborts) a.abort();
            for (const s of sockets) s.destroy();
          }
          await until(
            'no stream or listener left',
            () => server().service.openStreams === 0 && server().events.listenerCount === 0,
            15_000,
          );
        }),
        { numRuns: RUNS, seed: SEED },
      );
      // Through the gateway the partner's streams and waiting tasks really were the upstream's.
      if (target.upstream) {
        const methods = new Set(target.upstream.seen.map((r) => r.method));
        expect([methods.has('SendStreamingMessage'), target.upstream.asked.length > 0]).toEqual([true, true]);
      }
    }, 600_000);
  });
}
