import type { RedisClient } from '../redis/redis-client';

/**
 * A dependency an app checks. `check` resolves (optionally with details worth showing) when the
 * dependency is fine and throws when it is not.
 *
 * - `gate` (the default): the app cannot do its job without it, so /readyz answers 503 while it
 *   fails (PostgreSQL for the control plane and the worker, the verified bundle for a node).
 * - `report`: the app keeps serving without it; its state is shown in /healthz `details` and
 *   never takes the app out of service (Redis and the control plane, seen from a node that
 *   serves its last good bundle while they are away).
 */
export interface ReadinessProbe {
  name: string;
  check: () => Promise<void | Record<string, unknown>>;
  role?: 'gate' | 'report';
}
export const ReadinessProbes = Symbol('READINESS_PROBES');

/** PING on the app's command connection. */
export function redisProbe(redis: RedisClient, role: ReadinessProbe['role'] = 'gate'): ReadinessProbe {
  return { name: 'redis', role, check: async () => void (await redis.ping()) };
}
