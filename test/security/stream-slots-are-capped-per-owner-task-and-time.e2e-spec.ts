/**
 * Issue 27 item 2: stream slots are capped per owner, per task and in time, against a node serving
 * every capability in process. The suite is shared with the gateway target (issue 28): see
 * `./support/stream-slots-suite.ts`.
 */
import { streamSlotsAreCapped } from './support/stream-slots-suite';

streamSlotsAreCapped('in-process');
