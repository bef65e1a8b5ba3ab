/**
 * The stream caps (ADR 0205): node, authenticated owner, anonymous pool and task, each refused
 * with its own reason and nothing taken; released slots (once each) open again.
 */
import fc from 'fast-check';
import { A2AError } from './a2a-errors';
import { DEFAULT_STREAM_LIMITS, StreamLimiter } from './stream-limits';
import { ANONYMOUS_OWNER } from './task-store';

const limits = { ...DEFAULT_STREAM_LIMITS, maxStreams: 6, maxStreamsPerOwner: 3, maxAnonymousStreams: 2, maxStreamsPerTask: 2 };
const reason = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return (error as A2AError).errorInfo().reason;
  }
  return 'opened';
};

describe('StreamLimiter', () => {
  it('refuses past each cap with its reason, and the anonymous pool long before the node', () => {
    const l = new StreamLimiter(limits);
    l.acquire(ANONYMOUS_OWNER, 'a1');
    l.acquire(ANONYMOUS_OWNER, 'a2');
    expect(reason(() => l.acquire(ANONYMOUS_OWNER, 'a3'))).toBe('TOO_MANY_ANONYMOUS_STREAMS');
    expect(reason(() => l.check(ANONYMOUS_OWNER))).toBe('TOO_MANY_ANONYMOUS_STREAMS');
    const alice = '["t","alice"]';
    l.acquire(alice, 'x');
    l.acquire(alice, 'x');
    expect(reason(() => l.acquire(alice, 'x'))).toBe('TOO_MANY_STREAMS_FOR_TASK');
    l.acquire(alice, 'y');
    expect(reason(() => l.acquire(alice, 'z'))).toBe('TOO_MANY_STREAMS_FOR_CALLER');
    l.acquire('["t","bob"]', 'b');
    expect(l.open).toBe(6);
    expect(reason(() => l.acquire('["t","carol"]', 'c'))).toBe('TOO_MANY_STREAMS');
    expect(l.open).toBe(6);
  });

  it('never holds more than a cap allows and gives every slot back, whatever the order of opens and closes', () => {
    const owners = [ANONYMOUS_OWNER, '["t","a"]', '["t","b"]'];
    const op = fc.oneof(
      fc.record({ open: fc.constantFrom(...owners), task: fc.constantFrom('t1', 't2', 't3') }),
      fc.record({ close: fc.nat(20) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const l = new StreamLimiter(limits);
        const held: { owner: string; task: string; release: () => void }[] = [];
        for (const o of ops) {
          if ('open' in o) {
            try {
              held.push({ owner: o.open, task: o.task, release: l.acquire(o.open, o.task) });
            } catch (error) {
              expect(error).toBeInstanceOf(A2AError);
            }
          } else if (held.length > 0) {
            const [h] = held.splice(o.close % held.length, 1);
            h.release();
            h.release();
          }
          expect(l.open).toBe(held.length);
          expect(l.open).toBeLessThanOrEqual(limits.maxStreams);
          expect(held.filter((h) => h.owner === ANONYMOUS_OWNER).length).toBeLessThanOrEqual(limits.maxAnonymousStreams);
          for (const t of ['t1', 't2', 't3']) expect(held.filter((h) => h.task === t).length).toBeLessThanOrEqual(limits.maxStreamsPerTask);
        }
        for (const h of held) h.release();
        expect(l.open).toBe(0);
        expect(reason(() => l.acquire(ANONYMOUS_OWNER, 't1')())).toBe('opened');
      }),
    );
  });
});
