/** @cp/jobs/testing: a fixed clock and set-based usage/retirement data for tests and benchmarks (not in the production build). */
export { FixedClock } from './fixed-clock';
export * from './retirement-fixtures';
