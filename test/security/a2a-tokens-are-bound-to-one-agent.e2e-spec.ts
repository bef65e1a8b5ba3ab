/**
 * Issue 11 item 8: a2a tokens are bound to one agent, against a node serving every capability in
 * process. The suite is shared with the gateway target (issue 28): see `./support/audience-suite.ts`.
 */
import { a2aTokensAreBoundToOneAgent } from './support/audience-suite';

a2aTokensAreBoundToOneAgent('in-process');
