/**
 * The service and e2e tiers' setup: a jest worker that ran a unit spec before keeps the unit tier's
 * connection guard installed (core modules are shared by the worker's test files), so it is
 * switched off here for every spec that is meant to reach PostgreSQL and Redis.
 */
import net from 'node:net';

const BLOCKING = Symbol.for('cp.unit-tier.no-services.active');
(net.Socket.prototype as net.Socket & { [BLOCKING]?: boolean })[BLOCKING] = false;
