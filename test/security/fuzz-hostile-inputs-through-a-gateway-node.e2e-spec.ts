/**
 * Issue 28: the fuzz suite of issue 11 against a gateway node, reconcile-invoice served by an
 * official `@a2a-js/sdk` upstream: the node must be as robust in front of an upstream as it is
 * alone, and no hostile input may reach the upstream. The suite: `./support/fuzz-suite.ts`.
 */
import { fuzzHostileInputs } from './support/fuzz-suite';

jest.setTimeout(180_000);

fuzzHostileInputs('gateway');
