import type { AppConfig } from '@cp/common';
import type { RetirementPolicy } from '@cp/capabilities';

export function retirementPolicy(
  config: Pick<AppConfig, 'RETIREMENT_WINDOW_DAYS' | 'RETIREMENT_MIN_DEPRECATED_DAYS' | 'RETIREMENT_COVERAGE_GRACE_SECONDS'>,
): RetirementPolicy {
  return {
    windowDays: config.RETIREMENT_WINDOW_DAYS,
    minDeprecatedDays: config.RETIREMENT_MIN_DEPRECATED_DAYS,
    coverageGraceMs: config.RETIREMENT_COVERAGE_GRACE_SECONDS * 1000,
  };
}
