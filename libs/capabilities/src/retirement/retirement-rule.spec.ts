import { planRetirement, RetirementSkipCode, type RetirementCandidate, type RetirementPolicy } from './retirement-rule';
import type { NodeUsageState } from './coverage';

const DAY = 86_400_000;
const now = new Date('2027-01-31T03:00:00.000Z');
const daysAgo = (d: number) => new Date(now.getTime() - d * DAY);
const policy: RetirementPolicy = { windowDays: 30, minDeprecatedDays: 30, coverageGraceMs: 15 * 60_000 };
const candidate = (over: Partial<RetirementCandidate> & { capabilityId: string }): RetirementCandidate => ({
  deprecatedAt: daysAgo(45),
  replacedBy: 'new-thing',
  sunsetAt: null,
  callsInWindow: 0,
  lastCallInWindow: null,
  ...over,
});
const coveredNode: NodeUsageState = {
  nodeId: 'node-a',
  registeredAt: daysAgo(90),
  lastSeenAt: now,
  coverage: { coveredFrom: daysAgo(90), coveredUntil: new Date(now.getTime() - 60_000), closed: false },
  usedInWindow: true,
};

describe('planRetirement', () => {
  it('retires a capability deprecated ≥ 30 days with zero calls and known usage', () => {
    const plan = planRetirement([candidate({ capabilityId: 'old' })], [coveredNode], now, policy);
    expect(plan.retire.map((d) => d.capabilityId)).toEqual(['old']);
    expect(plan.retire[0].because).toMatch(/no calls since 2027-01-01T03:00:00.000Z on any of 1 node/);
    expect(plan.skip).toEqual([]);
  });

  it('keeps a capability that is still called, naming the calls', () => {
    const plan = planRetirement(
      [candidate({ capabilityId: 'busy', callsInWindow: 3, lastCallInWindow: daysAgo(2) })],
      [coveredNode],
      now,
      policy,
    );
    expect(plan.retire).toEqual([]);
    expect(plan.skip[0].reasons).toEqual([expect.objectContaining({ code: RetirementSkipCode.StillCalled, calls: 3 })]);
    expect(plan.skip[0].reasons[0].message).toMatch(/still called: 3 call\(s\)/);
  });

  it('keeps a capability deprecated less than 30 days ago, saying when it becomes eligible', () => {
    const plan = planRetirement([candidate({ capabilityId: 'fresh', deprecatedAt: daysAgo(29) })], [coveredNode], now, policy);
    expect(plan.skip[0].reasons).toEqual([
      expect.objectContaining({ code: RetirementSkipCode.DeprecatedTooRecently, eligibleAt: daysAgo(-1) }),
    ]);
  });

  it('keeps everything while a node that served the agent has not reported the whole window', () => {
    const lagging: NodeUsageState = {
      ...coveredNode,
      nodeId: 'node-b',
      coverage: { coveredFrom: daysAgo(90), coveredUntil: daysAgo(3), closed: false },
    };
    const plan = planRetirement([candidate({ capabilityId: 'old' })], [coveredNode, lagging], now, policy);
    expect(plan.retire).toEqual([]);
    expect(plan.skip[0].reasons[0]).toMatchObject({
      code: RetirementSkipCode.UsageUnknown,
      unknown: [{ nodeId: 'node-b', from: daysAgo(3), until: now }],
    });
    expect(plan.skip[0].reasons[0].message).toBe(`usage unknown for node node-b from ${daysAgo(3).toISOString()} to ${now.toISOString()}`);
  });

  it('lists every reason that applies, and orders decisions by id', () => {
    const plan = planRetirement(
      [
        candidate({ capabilityId: 'z', deprecatedAt: daysAgo(1), callsInWindow: 1, lastCallInWindow: daysAgo(1) }),
        candidate({ capabilityId: 'a' }),
      ],
      [coveredNode],
      now,
      policy,
    );
    expect(plan.retire.map((d) => d.capabilityId)).toEqual(['a']);
    expect(plan.skip[0].reasons.map((r) => r.code)).toEqual([RetirementSkipCode.DeprecatedTooRecently, RetirementSkipCode.StillCalled]);
  });

  it('retires with no nodes at all (nothing could have served it)', () => {
    expect(planRetirement([candidate({ capabilityId: 'old' })], [], now, policy).retire).toHaveLength(1);
  });

  it('honours a configured window', () => {
    const short = { ...policy, windowDays: 7, minDeprecatedDays: 7 };
    expect(planRetirement([candidate({ capabilityId: 'x', deprecatedAt: daysAgo(8) })], [coveredNode], now, short).retire).toHaveLength(1);
  });
});

describe('planRetirement: the announced sunset date', () => {
  it('keeps a capability until its sunset date passes, however quiet it is, and says so', () => {
    const sunsetAt = daysAgo(-5);
    const plan = planRetirement([candidate({ capabilityId: 'old', sunsetAt })], [coveredNode], now, policy);
    expect(plan.retire).toEqual([]);
    expect(plan.skip[0].reasons).toEqual([
      {
        code: RetirementSkipCode.SunsetNotReached,
        message: `the announced sunset date ${sunsetAt.toISOString()} has not passed`,
        sunsetAt,
      },
    ]);
    expect(plan.skip[0].earliestAt).toEqual(sunsetAt);
    expect(planRetirement([candidate({ capabilityId: 'old', sunsetAt: daysAgo(1) })], [coveredNode], now, policy).retire).toHaveLength(1);
  });

  it('earliestAt is the latest of eligibility, sunset and last call + window; null while usage is unknown', () => {
    const called = planRetirement(
      [candidate({ capabilityId: 'c', callsInWindow: 2, lastCallInWindow: daysAgo(10), sunsetAt: daysAgo(-3) })],
      [coveredNode],
      now,
      policy,
    );
    expect(called.skip[0].earliestAt).toEqual(new Date(daysAgo(10).getTime() + 30 * DAY + 1));
    const fresh = planRetirement([candidate({ capabilityId: 'f', deprecatedAt: daysAgo(2) })], [coveredNode], now, policy);
    expect(fresh.skip[0].earliestAt).toEqual(daysAgo(-28));
    const lagging: NodeUsageState = { ...coveredNode, coverage: { coveredFrom: daysAgo(90), coveredUntil: daysAgo(3), closed: false } };
    const unknown = planRetirement([candidate({ capabilityId: 'u', deprecatedAt: daysAgo(2) })], [lagging], now, policy);
    expect(unknown.skip[0].earliestAt).toBeNull();
    expect(unknown.unknownUsage).toEqual([{ nodeId: 'node-a', from: daysAgo(3), until: now }]);
    expect(planRetirement([candidate({ capabilityId: 'r' })], [coveredNode], now, policy).retire[0].earliestAt).toEqual(now);
  });
});
