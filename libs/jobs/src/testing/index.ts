/** @cp/jobs/testing: a fixed clock for tests and benchmarks (not in the production build). Data factories: test/support/given-db.ts. */
export { FixedClock } from './fixed-clock';
