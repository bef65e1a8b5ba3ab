/**
 * Fuzzing hostile inputs against a node serving every capability in process (issue 11). The suite
 * is shared with the gateway target (issue 28): see `./support/fuzz-suite.ts`.
 */
import { fuzzHostileInputs } from './support/fuzz-suite';

fuzzHostileInputs('in-process');
