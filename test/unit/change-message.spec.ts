/** The changes channel's message (ADR 0199): an announcement, then optionally the delta; hostile forms read as no delta. */
import { changeMessage, MAX_PUSHED_DELTA_LENGTH, parseChangeMessage, revisionAnnouncement } from '@cp/node-protocol';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('changeMessage / parseChangeMessage', () => {
  it('round-trips an announcement with a delta, with and without a traceparent', () => {
    for (const traceparent of [undefined, TRACEPARENT]) {
      const message = changeMessage(revisionAnnouncement('12|epoch-a', traceparent), '{"kind":"node-bundle-delta","x":"a|b\\nc"}');
      expect(parseChangeMessage(message)).toEqual({
        stamp: { revision: 12, epoch: 'epoch-a' },
        traceparent,
        delta: '{"kind":"node-bundle-delta","x":"a|b\\nc"}',
      });
    }
  });

  it('without a delta, the message is the announcement byte for byte (what the old channel carries)', () => {
    expect(changeMessage('7|e', null)).toBe('7|e');
    expect(changeMessage('7|e', '')).toBe('7|e');
    expect(parseChangeMessage('7|e')).toEqual({ stamp: { revision: 7, epoch: 'e' }, traceparent: undefined, delta: undefined });
  });

  it.each([
    ['a head that is not a stamp', 'hello\n{"kind":"node-bundle-delta"}'],
    ['a negative revision', '-1|e\n{}'],
    ['a head longer than an announcement', `${'1'.repeat(300)}|e\n{}`],
    ['an empty message', ''],
  ])('%s: no stamp and no delta', (_what, message) => {
    expect(parseChangeMessage(message)).toMatchObject({ stamp: undefined, delta: undefined });
  });

  it('a delta past the length limit is dropped, the announcement kept', () => {
    const parsed = parseChangeMessage(`3|e\n${'x'.repeat(MAX_PUSHED_DELTA_LENGTH + 1)}`);
    expect(parsed.stamp).toEqual({ revision: 3, epoch: 'e' });
    expect(parsed.delta).toBeUndefined();
    expect(parseChangeMessage(`3|e\n${'x'.repeat(MAX_PUSHED_DELTA_LENGTH)}`).delta).toHaveLength(MAX_PUSHED_DELTA_LENGTH);
  });
});
