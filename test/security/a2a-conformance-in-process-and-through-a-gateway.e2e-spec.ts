/**
 * Issue 28: the A2A conformance suite of a capability's protocol surface, run over both targets, a
 * node serving the capability in process and a gateway node in front of an official
 * `@a2a-js/sdk` upstream. The suite: `./support/conformance-suite.ts`.
 */
import { a2aConformance } from './support/conformance-suite';

jest.setTimeout(180_000);

a2aConformance('in-process');
a2aConformance('gateway');
