/**
 * Issue 11 item 6: tokens expire within a bounded lifetime, on the control plane's surfaces, a
 * tool's verifier and a node serving every capability in process. The suite is shared with the
 * gateway target (issue 28): see `./support/token-lifetime-suite.ts`.
 */
import { tokensExpireWithinABoundedLifetime } from './support/token-lifetime-suite';

tokensExpireWithinABoundedLifetime('in-process');
