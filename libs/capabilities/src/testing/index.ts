/** @cp/capabilities/testing: factories and fast-check arbitraries for tests (not in the production build). */
export { given } from './given';
export * from './arbitraries';
