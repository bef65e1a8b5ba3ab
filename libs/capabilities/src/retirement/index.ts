export { mergeCoverage, unknownUsage, servedInWindow } from './coverage';
export type { UsageCoverage, ReportedWindow, NodeUsageState, UnknownUsage } from './coverage';
export { planRetirement, retirementWindowStart, RetirementSkipCode } from './retirement-rule';
export type { RetirementPolicy, RetirementCandidate, RetirementSkipReason, RetirementDecision, RetirementPlan } from './retirement-rule';
