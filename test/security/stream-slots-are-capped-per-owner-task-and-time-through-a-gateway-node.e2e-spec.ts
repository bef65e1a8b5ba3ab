/**
 * Issue 28: stream slots are capped per owner, per task and in time (issue 27 item 2) at a gateway
 * node whose reconcile-invoice is served by an official `@a2a-js/sdk` upstream: the partner's
 * waiting tasks and streamed message are the upstream's. The suite: `./support/stream-slots-suite.ts`.
 */
import { streamSlotsAreCapped } from './support/stream-slots-suite';

jest.setTimeout(180_000);

streamSlotsAreCapped('gateway');
