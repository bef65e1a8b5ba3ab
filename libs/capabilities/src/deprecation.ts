/**
 * Deprecation on the wire (issue 21): what a node tells a caller of a deprecated capability, as
 * response headers (RFC 9745 `Deprecation`, RFC 8594 `Sunset`, RFC 8288 `Link`) and as the task
 * metadata notice. Pure: computed from the bundle's execution policy and the caller.
 */
import { isEntitled, type EntitlementContext } from './entitlement';
import type { ExecutionPolicy } from './execution-policy';
import type { Caller } from './types';

export interface DeprecationAnnouncement {
  capabilityId: string;
  /** ISO 8601, or null when the registry has no deprecation time. */
  deprecatedAt: string | null;
  /** The announced removal date (ISO 8601), or null when none is announced. */
  sunsetAt: string | null;
  /** The replacement THIS caller may use, else null (never names one the caller cannot see). */
  replacedBy: string | null;
}

/** The announcement for `capabilityId` as `caller` may see it, or null when it is not deprecated. */
export function deprecationFor(
  policy: ExecutionPolicy,
  capabilityId: string,
  caller: Caller,
  ctx: EntitlementContext,
): DeprecationAnnouncement | null {
  const entry = policy.entries.find((e) => e.capabilityId === capabilityId);
  if (!entry?.deprecation) return null;
  const { deprecatedAt, sunsetAt, replacedBy } = entry.deprecation;
  const replacement = replacedBy === null ? undefined : policy.entries.find((e) => e.capabilityId === replacedBy);
  return {
    capabilityId,
    deprecatedAt,
    sunsetAt,
    replacedBy: replacement && isEntitled(replacement, caller, ctx) ? replacement.capabilityId : null,
  };
}

/** Where a replacement is described: the card the caller reads it from, with the skill id as fragment. */
export interface DeprecationLinks {
  /** The public card path (`/.well-known/agent-card.json`). */
  publicCard: string;
  /** The extended card path for callers with a token (`/a2a/rest/extendedAgentCard`). */
  extendedCard: string;
}

/** RFC 9651 structured-field Date: `@` and whole seconds since the epoch. */
export function structuredDate(iso: string): string {
  return `@${Math.floor(Date.parse(iso) / 1000)}`;
}

/**
 * The response headers for a deprecated capability: `Deprecation` (RFC 9745: the time it was
 * deprecated; `@<epoch>`), `Sunset` once a removal date is announced (RFC 8594: an IMF-fixdate),
 * and `Link` to the replacement with rel="successor-version" (RFC 5829) when this caller may use
 * one. Header values hold only ids and dates the registry validated, never caller input.
 */
export function deprecationHeaders(announcement: DeprecationAnnouncement, links: DeprecationLinks, caller: Caller): Record<string, string> {
  // A deprecation without a recorded time still is one: the epoch start is RFC 9745's "in the past".
  const headers: Record<string, string> = { deprecation: structuredDate(announcement.deprecatedAt ?? '1970-01-01T00:00:00.000Z') };
  if (announcement.sunsetAt) headers.sunset = new Date(announcement.sunsetAt).toUTCString();
  if (announcement.replacedBy) {
    const card = caller === null ? links.publicCard : links.extendedCard;
    headers.link = `<${card}#skill=${announcement.replacedBy}>; rel="successor-version"; title="${announcement.replacedBy}"`;
  }
  return headers;
}

/** The task metadata notice (`metadata.deprecation`): the replacement and the dates, in words too. */
export function deprecationNotice(announcement: DeprecationAnnouncement): {
  message: string;
  replacedBy: string | null;
  deprecatedAt: string | null;
  sunsetAt: string | null;
} {
  const { capabilityId, replacedBy, deprecatedAt, sunsetAt } = announcement;
  const parts = [`capability "${capabilityId}" is deprecated`];
  if (replacedBy) parts.push(`use "${replacedBy}" instead`);
  parts.push(sunsetAt ? `it will be removed on or after ${sunsetAt}` : 'no removal date is announced yet');
  return { message: parts.join('; '), replacedBy, deprecatedAt, sunsetAt };
}
