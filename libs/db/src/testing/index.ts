/** @cp/db/testing: test-only helpers (never imported by product code, not in the production build). */
export { diffSchemaAgainstDatabase } from './schema-drift';
