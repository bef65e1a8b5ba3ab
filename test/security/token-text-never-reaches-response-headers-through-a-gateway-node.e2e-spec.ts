/**
 * Issue 28: token text never reaches response headers (issue 11 item 12) at a gateway node whose
 * reconcile-invoice is served by an official `@a2a-js/sdk` upstream: a hostile token is refused
 * before anything reaches the upstream, and its text is in nothing the upstream received. The
 * suite: `./support/token-text-suite.ts`.
 */
import { tokenTextNeverReachesResponseHeaders } from './support/token-text-suite';

jest.setTimeout(180_000);

tokenTextNeverReachesResponseHeaders('gateway');
