/**
 * The unit tier's guard: every TCP or socket connection to PostgreSQL (5432, its unix socket) or
 * Redis (6379) fails at once with ECONNREFUSED, whether or not they run on this machine. A unit
 * spec that needs a service fails here, where it is written, not on a machine without services.
 * Loopback servers a spec starts itself (Fastify on port 0) are not affected.
 */
import net from 'node:net';

export const UNIT_TIER_BLOCKED_PORTS = new Set([5432, 6379]);
const PATCHED = Symbol.for('cp.unit-tier.no-services');
/**
 * Core modules are shared by every test file a jest worker runs, whatever its project: the patch
 * stays installed for the worker's life, so it only refuses while this flag is on. The unit tier
 * turns it on (this file); the service and e2e tiers turn it off (services-allowed.ts).
 */
export const BLOCKING = Symbol.for('cp.unit-tier.no-services.active');

type Target = { port?: unknown; path?: unknown };

function targetOf(args: unknown[]): Target {
  // net.connect() hands Socket#connect one normalized [options, callback] array.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first && typeof first === 'object') return first as Target;
  return typeof first === 'string' && !/^\d+$/.test(first) ? { path: first } : { port: first };
}

function blocked({ port, path }: Target): string | undefined {
  if (port !== undefined && UNIT_TIER_BLOCKED_PORTS.has(Number(port))) return `port ${Number(port)}`;
  if (typeof path === 'string' && /\.s\.PGSQL\.\d+$/.test(path)) return path;
  return undefined;
}

const proto = net.Socket.prototype as net.Socket & { [PATCHED]?: true; [BLOCKING]?: boolean };
proto[BLOCKING] = true;
if (!proto[PATCHED]) {
  const connect = proto.connect;
  proto[PATCHED] = true;
  proto.connect = function (this: net.Socket, ...args: unknown[]) {
    const what = proto[BLOCKING] ? blocked(targetOf(args)) : undefined;
    if (!what) return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
    const error = Object.assign(new Error(`connect ECONNREFUSED (${what}): unit specs run without PostgreSQL and Redis`), {
      code: 'ECONNREFUSED',
    });
    process.nextTick(() => this.destroy(error));
    return this;
  };
}
