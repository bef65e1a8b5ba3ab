/**
 * The retirement rule (seed: "removes it after the registry shows no calls for 30 days"):
 * a capability is retired when it has been deprecated for at least `minDeprecatedDays`, has had
 * zero calls in the last `windowDays`, AND its usage in that window is known: every node that
 * served the agent has reported coverage through now (minus a small grace). Unknown usage is
 * not zero usage. Pure: the caller passes `now` and the facts; this decides.
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
  callsInWindow: number;
  lastCallInWindow: Date | null;
}

export enum RetirementSkipCode {
  StillCalled = 'STILL_CALLED',
  DeprecatedTooRecently = 'DEPRECATED_TOO_RECENTLY',
  UsageUnknown = 'USAGE_UNKNOWN',
}

export type RetirementSkipReason =
  | { code: RetirementSkipCode.StillCalled; message: string; calls: number; lastCallAt: Date | null }
  | { code: RetirementSkipCode.DeprecatedTooRecently; message: string; deprecatedAt: Date; eligibleAt: Date }
  | { code: RetirementSkipCode.UsageUnknown; message: string; unknown: UnknownUsage[] };

export interface RetirementDecision {
  capabilityId: string;
  retire: boolean;
  /** Why it is retired (when retire) — the facts the rule checked. */
  because: string;
  /** Every reason it is not retired (empty when retire). */
  reasons: RetirementSkipReason[];
}

export interface RetirementPlan {
  asOf: Date;
  windowStart: Date;
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
  const plan: RetirementPlan = { asOf: now, windowStart: since, retire: [], skip: [] };
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
    });
  }
  return plan;
}

function iso(date: Date): string {
  return date.toISOString();
}
