/**
 * Issue 27: fuzzed stream sequences against the node with every capability in process. The suite:
 * `./support/stream-fuzz-suite.ts`; the same runs through a gateway node in
 * `fuzz-stream-sequences-through-a-gateway-node.e2e-spec.ts`.
 */
import { fuzzStreamSequences } from './support/stream-fuzz-suite';

jest.setTimeout(180_000);

fuzzStreamSequences('in-process');
