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

  it('a sunset already announced is not due again; a move is, naming the date it moved from, also back to an earlier date', () => {
    const april = new Date('2027-04-01T00:00:00Z');
    const may = new Date('2027-05-01T00:00:00Z');
    const sunsetNotice = (s: NoticeSubject) => dueNotices(s, now).find((d) => d.event === NoticeEvent.SunsetScheduled);
    const deprecatedAt = subject().deprecatedAt.toISOString();
    const told = (count: number, sunsetAt: Date | null) => ({ count, latest: { deprecatedAt, sunsetAt: sunsetAt?.toISOString() ?? null } });

    const first = sunsetNotice(subject({ sunsetAt: april }))!;
    expect([first.eventKey, first.payload.data.previousSunsetAt]).toEqual(['2027-04-01T00:00:00.000Z', null]);
    expect(sunsetNotice(subject({ sunsetAt: april, announcedSunsets: told(1, april) }))).toBeUndefined();

    const moved = sunsetNotice(subject({ sunsetAt: may, announcedSunsets: told(1, april) }))!;
    expect(moved.eventKey).toBe('2027-05-01T00:00:00.000Z#2');
    expect(moved.payload.data).toMatchObject({ sunsetAt: '2027-05-01T00:00:00.000Z', previousSunsetAt: '2027-04-01T00:00:00.000Z' });

    // Back to April: its first key is taken, yet the callers were last told May.
    const back = sunsetNotice(subject({ sunsetAt: april, announcedSunsets: told(2, may) }))!;
    expect(back.eventKey).toBe('2027-04-01T00:00:00.000Z#3');
    expect(back.payload.data.previousSunsetAt).toBe('2027-05-01T00:00:00.000Z');

    // Withdrawn: nothing to announce; set again to the date last told: nothing new either.
    expect(sunsetNotice(subject({ sunsetAt: null, announcedSunsets: told(2, may) }))).toBeUndefined();
    expect(sunsetNotice(subject({ sunsetAt: may, announcedSunsets: told(2, may) }))).toBeUndefined();
  });

  it('sunsets announced for an earlier deprecation do not count as told for this one', () => {
    const april = new Date('2027-04-01T00:00:00Z');
    const earlier = { count: 1, latest: { deprecatedAt: '2026-01-01T00:00:00.000Z', sunsetAt: april.toISOString() } };
    const due = dueNotices(subject({ sunsetAt: april, announcedSunsets: earlier }), now).find(
      (d) => d.event === NoticeEvent.SunsetScheduled,
    )!;
    expect(due.eventKey).toBe('2027-04-01T00:00:00.000Z#2');
    expect(due.payload.data.previousSunsetAt).toBeNull();
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
