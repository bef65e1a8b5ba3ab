/**
 * Issue 28: tokens expire within a bounded lifetime (issue 11 item 6) at a gateway node whose
 * reconcile-invoice is served by an official `@a2a-js/sdk` upstream: a refused token reaches
 * nothing upstream, and the exchanged token the upstream receives is bounded too. The suite:
 * `./support/token-lifetime-suite.ts`.
 */
import { tokensExpireWithinABoundedLifetime } from './support/token-lifetime-suite';

jest.setTimeout(180_000);

tokensExpireWithinABoundedLifetime('gateway');
