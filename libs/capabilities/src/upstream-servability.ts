/**
 * "Advertised means servable" for capabilities served by an upstream agent (issue 28 item 6, ADR
 * 0275). A gateway node fetches each upstream's own card (on sync and periodically) and reports,
 * per card, whether it answered and which skills it lists. From that report, pure rules decide
 * whether a capability is servable on that node, and what drifted between the upstream's card and
 * the registry. The node, the plan gate and the fleet view apply the same rules to the same report.
 */
import { z } from 'zod';
import type { CapabilityManifest } from './types';
import { UPSTREAM_SKILL_MAX, UPSTREAM_URL_MAX, upstreamCardUrl, upstreamSkillId } from './upstream';

/** Skills of one upstream card a node reports (a card listing more is reported truncated). */
export const MAX_REPORTED_SKILLS = 2000;
/** Upstream cards one node reports. */
export const MAX_REPORTED_CARDS = 500;
export const UPSTREAM_REASON_MAX = 500;
const SKILL_NAME_MAX = 200;

/** What a gateway node saw when it last fetched one upstream's card. */
export interface UpstreamCardReport {
  /** The card's URL (upstreamCardUrl of the manifests that name it). */
  card: string;
  /** It answered with a card the node could read. */
  ok: boolean;
  /** Why not, when not ok. */
  reason?: string;
  /** The skills the card lists (ok only), in its order, at most MAX_REPORTED_SKILLS. */
  skills: { id: string; name?: string }[];
  /** The card listed more skills than were reported. */
  truncated?: boolean;
  /** When it was fetched (ISO 8601). */
  checkedAt: string;
}

const noControl = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters');

/** The wire shape of a gateway node's report (a node's body is untrusted input: bounded). */
export const upstreamReportSchema = z
  .array(
    z.strictObject({
      card: noControl(UPSTREAM_URL_MAX),
      ok: z.boolean(),
      reason: noControl(UPSTREAM_REASON_MAX).optional(),
      skills: z
        .array(z.strictObject({ id: noControl(UPSTREAM_SKILL_MAX), name: noControl(SKILL_NAME_MAX).optional() }))
        .max(MAX_REPORTED_SKILLS),
      truncated: z.boolean().optional(),
      checkedAt: z.iso.datetime(),
    }),
  )
  .max(MAX_REPORTED_CARDS)
  .refine((cards) => new Set(cards.map((c) => c.card)).size === cards.length, 'must not report a card twice');

/**
 * Why the capability (with an upstream) cannot be served by a node with this report; undefined
 * when it can. `reports` undefined: the node is not a gateway (it has no upstream probe). A card
 * the node has not fetched yet (a capability just published) counts as servable: the node fetches
 * it right after it applies the revision, and reports within one heartbeat.
 */
export function upstreamProblem(
  m: Pick<CapabilityManifest, 'id' | 'upstream'>,
  reports: readonly UpstreamCardReport[] | undefined,
): string | undefined {
  if (!m.upstream) return undefined;
  if (!reports) return 'this node does not forward to upstream agents (no upstream probe)';
  const card = upstreamCardUrl(m.upstream);
  const report = reports.find((r) => r.card === card);
  if (!report) return undefined;
  if (!report.ok) return `its upstream's card ${card} did not answer: ${report.reason ?? 'no reason given'}`;
  const skill = upstreamSkillId(m.upstream, m.id);
  if (report.truncated || report.skills.some((s) => s.id === skill)) return undefined;
  return `its upstream's card ${card} no longer lists skill "${skill}"`;
}

/** One upstream card compared with the registry. */
export interface UpstreamDrift {
  card: string;
  /** ok: answered; unreachable: did not; unchecked: no node has fetched it yet. */
  status: 'ok' | 'unreachable' | 'unchecked';
  reason?: string;
  checkedAt?: string;
  /** Capabilities served by this upstream whose skill its card lists. */
  covered: { capabilityId: string; skill: string }[];
  /** Skills the upstream offers that no manifest covers. */
  uncovered: { id: string; name?: string }[];
  /** Manifests whose upstream card no longer lists their skill. */
  missing: { capabilityId: string; skill: string }[];
  /** The card listed more skills than were reported: `uncovered` is partial. */
  truncated: boolean;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The drift of each upstream of `manifests` (removed ones ignored) against one node's report:
 * cards in the order of their URLs, each list sorted.
 */
export function upstreamDrift(
  manifests: readonly Pick<CapabilityManifest, 'id' | 'state' | 'upstream'>[],
  reports: readonly UpstreamCardReport[],
): UpstreamDrift[] {
  const byCard = new Map<string, { capabilityId: string; skill: string }[]>();
  for (const m of manifests) {
    if (!m.upstream || m.state === 'removed') continue;
    const card = upstreamCardUrl(m.upstream);
    const list = byCard.get(card) ?? [];
    list.push({ capabilityId: m.id, skill: upstreamSkillId(m.upstream, m.id) });
    byCard.set(card, list);
  }
  const out: UpstreamDrift[] = [];
  for (const [card, served] of byCard) {
    served.sort((a, b) => byString(a.capabilityId, b.capabilityId));
    const report = reports.find((r) => r.card === card);
    if (!report || !report.ok) {
      out.push({
        card,
        status: report ? 'unreachable' : 'unchecked',
        ...(report?.reason ? { reason: report.reason } : {}),
        ...(report ? { checkedAt: report.checkedAt } : {}),
        covered: [],
        uncovered: [],
        missing: [],
        truncated: false,
      });
      continue;
    }
    const offered = new Set(report.skills.map((s) => s.id));
    const wanted = new Set(served.map((s) => s.skill));
    out.push({
      card,
      status: 'ok',
      checkedAt: report.checkedAt,
      covered: served.filter((s) => offered.has(s.skill)),
      uncovered: report.skills.filter((s) => !wanted.has(s.id)).sort((a, b) => byString(a.id, b.id)),
      // A truncated report cannot prove a skill absent.
      missing: report.truncated ? [] : served.filter((s) => !offered.has(s.skill)),
      truncated: report.truncated === true,
    });
  }
  return out.sort((a, b) => byString(a.card, b.card));
}

/** Several nodes' reports as one: per card, the most recently fetched (what the fleet knows last). */
export function latestReports(reports: readonly (readonly UpstreamCardReport[])[]): UpstreamCardReport[] {
  const latest = new Map<string, UpstreamCardReport>();
  for (const r of reports.flat()) {
    const known = latest.get(r.card);
    if (!known || known.checkedAt < r.checkedAt) latest.set(r.card, r);
  }
  return [...latest.values()];
}
