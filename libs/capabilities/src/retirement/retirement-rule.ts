/**
 * The retirement rule (seed: "removes it after the registry shows no calls for 30 days"):
 * a capability is retired when it has been deprecated for at least `minDeprecatedDays`, has had
 * zero calls in the last `windowDays`, AND its usage in that window is known: every node that
 * served the agent has reported coverage through now (minus a small grace). Unknown usage is
 * not zero usage. When a sunset date was announced, it is also never retired before that date
 * (issue 21: callers were told "not before"). Pure: the caller passes `now` and the facts; this decides.
 */
import { unknownUsage, type NodeUsageState, type UnknownUsage } from './coverage';

const DAY_MS = 86_400_000;

export interface RetirementPolicy {
  /** Zero calls are required in the last windowDays. */
  windowDays: number;
  /** Deprecated for at least this long. */
  minDeprecatedDays: number;
  /** How far behind now a node's coverage may end (flush interval + transit). */
  coverageGraceMs: number;
}

/** A deprecated capability and its calls inside the window. */
export interface RetirementCandidate {
  capabilityId: string;
  deprecatedAt: Date;
  replacedBy: string | null;
  /** The announced removal date, or null when none was announced. */
  sunsetAt: Date | null;
  callsInWindow: number;
  lastCallInWindow: Date | null;
}

export enum RetirementSkipCode {
  StillCalled = 'STILL_CALLED',
  DeprecatedTooRecently = 'DEPRECATED_TOO_RECENTLY',
  UsageUnknown = 'USAGE_UNKNOWN',
  SunsetNotReached = 'SUNSET_NOT_REACHED',
}

export type RetirementSkipReason =
  | { code: RetirementSkipCode.StillCalled; message: string; calls: number; lastCallAt: Date | null }
  | { code: RetirementSkipCode.DeprecatedTooRecently; message: string; deprecatedAt: Date; eligibleAt: Date }
  | { code: RetirementSkipCode.UsageUnknown; message: string; unknown: UnknownUsage[] }
  | { code: RetirementSkipCode.SunsetNotReached; message: string; sunsetAt: Date };

export interface RetirementDecision {
  capabilityId: string;
  retire: boolean;
  /** Why it is retired (when retire) — the facts the rule checked. */
  because: string;
  /** Every reason it is not retired (empty when retire). */
  reasons: RetirementSkipReason[];
  /**
   * The earliest time a run could retire it if nobody calls it again: the latest of eligibility,
   * the sunset date and the last call plus the window. Null while usage is unknown (no date can
   * be promised then). `asOf` for a capability retired now.
   */
  earliestAt: Date | null;
}

export interface RetirementPlan {
  asOf: Date;
  windowStart: Date;
  /** Where the agent's usage in the window is not known (the same for every capability). */
  unknownUsage: UnknownUsage[];
  retire: RetirementDecision[];
  skip: RetirementDecision[];
}

export function retirementWindowStart(now: Date, policy: RetirementPolicy): Date {
  return new Date(now.getTime() - policy.windowDays * DAY_MS);
}

/** Decides, for one agent, which deprecated capabilities to retire and why the others stay. */
export function planRetirement(
  candidates: readonly RetirementCandidate[],
  nodes: readonly NodeUsageState[],
  now: Date,
  policy: RetirementPolicy,
): RetirementPlan {
  const since = retirementWindowStart(now, policy);
  // Coverage is per node and the same for every capability of the agent: compute it once.
  const unknown = nodes.map((node) => unknownUsage(node, since, now, policy.coverageGraceMs)).filter((u): u is UnknownUsage => u !== null);
  const plan: RetirementPlan = { asOf: now, windowStart: since, unknownUsage: unknown, retire: [], skip: [] };
  for (const candidate of [...candidates].sort((a, b) =>
    a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0,
  )) {
    const reasons: RetirementSkipReason[] = [];
    const eligibleAt = new Date(candidate.deprecatedAt.getTime() + policy.minDeprecatedDays * DAY_MS);
    if (eligibleAt.getTime() > now.getTime()) {
      reasons.push({
        code: RetirementSkipCode.DeprecatedTooRecently,
        message: `deprecated at ${iso(candidate.deprecatedAt)}, less than ${policy.minDeprecatedDays} days ago (eligible from ${iso(eligibleAt)})`,
        deprecatedAt: candidate.deprecatedAt,
        eligibleAt,
      });
    }
    if (candidate.callsInWindow > 0) {
      reasons.push({
        code: RetirementSkipCode.StillCalled,
        message: `still called: ${candidate.callsInWindow} call(s) since ${iso(since)}${candidate.lastCallInWindow ? `, last at ${iso(candidate.lastCallInWindow)}` : ''}`,
        calls: candidate.callsInWindow,
        lastCallAt: candidate.lastCallInWindow,
      });
    }
    if (candidate.sunsetAt && candidate.sunsetAt.getTime() > now.getTime()) {
      reasons.push({
        code: RetirementSkipCode.SunsetNotReached,
        message: `the announced sunset date ${iso(candidate.sunsetAt)} has not passed`,
        sunsetAt: candidate.sunsetAt,
      });
    }
    if (unknown.length > 0) {
      reasons.push({
        code: RetirementSkipCode.UsageUnknown,
        message: unknown.map((u) => `usage unknown for node ${u.nodeId} from ${iso(u.from)} to ${iso(u.until)}`).join('; '),
        unknown,
      });
    }
    const retire = reasons.length === 0;
    plan[retire ? 'retire' : 'skip'].push({
      capabilityId: candidate.capabilityId,
      retire,
      because: retire
        ? `deprecated since ${iso(candidate.deprecatedAt)} and no calls since ${iso(since)} on any of ${nodes.length} node(s), usage known`
        : '',
      reasons,
      earliestAt: retire ? now : unknown.length > 0 ? null : earliestRetirement(candidate, eligibleAt, now, policy),
    });
  }
  return plan;
}

/** The latest of: eligible by age, the sunset date, the last call in the window plus the window. */
function earliestRetirement(candidate: RetirementCandidate, eligibleAt: Date, now: Date, policy: RetirementPolicy): Date {
  const times = [now.getTime(), eligibleAt.getTime()];
  if (candidate.sunsetAt) times.push(candidate.sunsetAt.getTime());
  // The window is "no calls since now - windowDays": a call at T keeps it until just after T + window.
  if (candidate.callsInWindow > 0 && candidate.lastCallInWindow)
    times.push(candidate.lastCallInWindow.getTime() + policy.windowDays * DAY_MS + 1);
  return new Date(Math.max(...times));
}

function iso(date: Date): string {
  return date.toISOString();
}
