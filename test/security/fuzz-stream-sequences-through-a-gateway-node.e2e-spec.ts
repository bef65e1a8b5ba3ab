/**
 * Issue 28: the stream-sequence fuzz of issue 27 against a gateway node, reconcile-invoice served by
 * an official `@a2a-js/sdk` upstream: relayed upstream streams and subscriptions to tasks waiting on
 * the upstream hold the same caps and leave nothing behind. The suite: `./support/stream-fuzz-suite.ts`.
 */
import { fuzzStreamSequences } from './support/stream-fuzz-suite';

jest.setTimeout(180_000);

fuzzStreamSequences('gateway');
