import { dueNotices, NoticeEvent, type NoticeSubject } from './deprecation-notices';

const DAY = 86_400_000;
const now = new Date('2027-03-01T00:00:00.000Z');
const subject = (over: Partial<NoticeSubject> = {}): NoticeSubject => ({
  agentId: 'finance-agent',
  capabilityId: 'old',
  tenantId: 'acme',
  deprecatedAt: new Date(now.getTime() - 2 * DAY),
  sunsetAt: null,
  replacedBy: 'new',
  deprecationReason: null,
  earliestRemovalAt: new Date(now.getTime() + 30 * DAY),
  ...over,
});

describe('dueNotices', () => {
  it('a deprecation without a sunset: one notice, keyed by the deprecation time', () => {
    const due = dueNotices(subject(), now);
    expect(due.map((d) => [d.event, d.eventKey])).toEqual([[NoticeEvent.Deprecated, '2027-02-27T00:00:00.000Z']]);
    expect(due[0].payload).toMatchObject({
      type: 'capability.deprecated',
      data: { capabilityId: 'old', tenantId: 'acme', replacedBy: 'new' },
    });
  });

  it('each sunset date is its own notice (set, then moved)', () => {
    const first = dueNotices(subject({ sunsetAt: new Date('2027-04-01T00:00:00Z') }), now);
    const moved = dueNotices(subject({ sunsetAt: new Date('2027-05-01T00:00:00Z') }), now);
    expect(first.find((d) => d.event === NoticeEvent.SunsetScheduled)!.eventKey).toBe('2027-04-01T00:00:00.000Z');
    expect(moved.find((d) => d.event === NoticeEvent.SunsetScheduled)!.eventKey).toBe('2027-05-01T00:00:00.000Z');
  });

  it('removal imminent from a week before the earliest removal, keyed by its day; never while unknown', () => {
    const soon = new Date(now.getTime() + 7 * DAY);
    expect(dueNotices(subject({ earliestRemovalAt: soon }), now).map((d) => d.event)).toContain(NoticeEvent.RemovalImminent);
    expect(dueNotices(subject({ earliestRemovalAt: new Date(soon.getTime() + 1) }), now).map((d) => d.event)).not.toContain(
      NoticeEvent.RemovalImminent,
    );
    expect(dueNotices(subject({ earliestRemovalAt: null }), now).map((d) => d.event)).toEqual([NoticeEvent.Deprecated]);
    expect(dueNotices(subject({ earliestRemovalAt: soon }), now).find((d) => d.event === NoticeEvent.RemovalImminent)!.eventKey).toBe(
      '2027-03-08',
    );
  });

  it('the same facts give the same keys (a second scan finds the same notices)', () => {
    const a = dueNotices(subject({ sunsetAt: new Date('2027-04-01T00:00:00Z') }), now);
    const b = dueNotices(subject({ sunsetAt: new Date('2027-04-01T00:00:00Z') }), new Date(now.getTime() + DAY));
    expect(a.map((d) => `${d.event}|${d.eventKey}`)).toEqual(b.map((d) => `${d.event}|${d.eventKey}`));
  });
});
