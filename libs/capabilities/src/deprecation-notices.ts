/**
 * Which deprecation notices are due for one capability and one tenant that called it (issue 21).
 * Each notice has an event and an event key; (tenant, agent, capability, event, key) is what
 * makes a notice unique, so finding it again never sends it twice, while a moved sunset date (a
 * new key) is a new notice, also when it moves back to a date announced before. Pure: the caller
 * passes `now` and the facts, including what was last announced.
 */
export enum NoticeEvent {
  Deprecated = 'capability.deprecated',
  SunsetScheduled = 'capability.sunset_scheduled',
  RemovalImminent = 'capability.removal_imminent',
}

export const REMOVAL_IMMINENT_MS = 7 * 86_400_000;

export interface NoticeSubject {
  agentId: string;
  capabilityId: string;
  tenantId: string;
  deprecatedAt: Date;
  sunsetAt: Date | null;
  /** The replacement this tenant may use (the caller filters by tenant), else null. */
  replacedBy: string | null;
  deprecationReason: string | null;
  /** From the retirement rule: the earliest removal if nobody calls again; null while unknown. */
  earliestRemovalAt: Date | null;
  /**
   * The sunset-scheduled notices already recorded for this tenant and capability: how many, and
   * the latest one's facts (null when none). Default: none.
   */
  announcedSunsets?: { count: number; latest: { deprecatedAt: string | null; sunsetAt: string | null } | null };
}

/** The notice body (Standard Webhooks' `type`, `timestamp`, `data`). */
export interface NoticePayload {
  type: NoticeEvent;
  timestamp: string;
  data: {
    agentId: string;
    capabilityId: string;
    tenantId: string;
    replacedBy: string | null;
    deprecationReason: string | null;
    deprecatedAt: string;
    sunsetAt: string | null;
    /** sunset_scheduled only: the date it moved from (null when it is the first one announced). */
    previousSunsetAt?: string | null;
    earliestRemovalAt: string | null;
  };
}

export interface DueNotice {
  event: NoticeEvent;
  eventKey: string;
  payload: NoticePayload;
}

export function dueNotices(s: NoticeSubject, now: Date, imminentMs = REMOVAL_IMMINENT_MS): DueNotice[] {
  const payload = (type: NoticeEvent): NoticePayload => ({
    type,
    timestamp: now.toISOString(),
    data: {
      agentId: s.agentId,
      capabilityId: s.capabilityId,
      tenantId: s.tenantId,
      replacedBy: s.replacedBy,
      deprecationReason: s.deprecationReason,
      deprecatedAt: s.deprecatedAt.toISOString(),
      sunsetAt: s.sunsetAt?.toISOString() ?? null,
      earliestRemovalAt: s.earliestRemovalAt?.toISOString() ?? null,
    },
  });
  const out: DueNotice[] = [
    { event: NoticeEvent.Deprecated, eventKey: s.deprecatedAt.toISOString(), payload: payload(NoticeEvent.Deprecated) },
  ];
  // The sunset is announced when set and on every move: due while it differs from the latest one
  // announced for this deprecation. The first key is the date; later ones count the announcements
  // (so a move back to an earlier date is still told, and a repeated scan finds the same key).
  const announced = s.announcedSunsets ?? { count: 0, latest: null };
  const latest = announced.latest?.deprecatedAt === s.deprecatedAt.toISOString() ? announced.latest.sunsetAt : null;
  const sunset = s.sunsetAt?.toISOString() ?? null;
  if (sunset && sunset !== latest) {
    const scheduled = payload(NoticeEvent.SunsetScheduled);
    scheduled.data.previousSunsetAt = latest;
    out.push({
      event: NoticeEvent.SunsetScheduled,
      eventKey: announced.count === 0 ? sunset : `${sunset}#${announced.count + 1}`,
      payload: scheduled,
    });
  }
  // A week before the earliest removal the rule allows (sunset included), keyed by that day.
  const removal = s.earliestRemovalAt;
  if (removal && removal.getTime() - imminentMs <= now.getTime())
    out.push({
      event: NoticeEvent.RemovalImminent,
      eventKey: removal.toISOString().slice(0, 10),
      payload: payload(NoticeEvent.RemovalImminent),
    });
  return out;
}
