/**
 * Issue 28: a2a tokens are bound to one agent (issue 11 item 8) at a gateway node whose
 * reconcile-invoice is served by an official `@a2a-js/sdk` upstream: a token for another audience
 * reaches nothing upstream, an accepted one only as an exchanged token. The suite:
 * `./support/audience-suite.ts`.
 */
import { a2aTokensAreBoundToOneAgent } from './support/audience-suite';

jest.setTimeout(180_000);

a2aTokensAreBoundToOneAgent('gateway');
