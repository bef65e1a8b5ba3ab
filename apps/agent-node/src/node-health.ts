import type { ReadinessProbe } from '@cp/common';
import type { NodeSync } from '@cp/node-sdk';

/**
 * A node is ready once it serves a verified bundle (from the control plane or its disk copy),
 * whatever Redis and the control plane are doing: it is built to keep serving its last good
 * bundle while they are away, so taking it out of a load balancer then would be the outage.
 * Their state is reported (in /healthz details), never gated on.
 */
export function nodeSyncProbes(sync: NodeSync): ReadinessProbe[] {
  return [
    {
      name: 'bundle',
      check: async () => {
        const { revision, source, servedHash, registration } = sync.status();
        // A refusal is final for this configuration (bad node id, another agent's id, bad token).
        if (registration.refused) throw new Error(`node not registered with the control plane: ${registration.error}`);
        if (revision === null) throw new Error('no verified capability bundle yet');
        return { revision, source, servedHash };
      },
    },
    {
      name: 'redis',
      role: 'report',
      check: async () => {
        if (!sync.status().invalidationsConnected) {
          throw new Error('invalidation channel disconnected: reconnecting, polling the control plane meanwhile');
        }
      },
    },
    {
      name: 'controlPlane',
      role: 'report',
      check: async () => {
        const { lastFetchAt, lastFetchError } = sync.status();
        if (lastFetchError) throw new Error(lastFetchError);
        if (!lastFetchAt) throw new Error('no answer from the control plane yet');
        return { lastFetchAt: lastFetchAt.toISOString() };
      },
    },
  ];
}
