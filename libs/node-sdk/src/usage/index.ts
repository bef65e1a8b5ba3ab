export { UsageCounter } from './usage-counter';
export type { UsageCount } from './usage-counter';
export { UsageReporter } from './usage-reporter';
export type { UsageBatch, UsageSender, SendOutcome, UsageLog, UsageReporterOptions } from './usage-reporter';
export { HttpUsageSender, USAGE_PATH } from './http-usage-sender';
