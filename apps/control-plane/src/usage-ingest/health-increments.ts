import { CALL_OUTCOMES, LATENCY_BUCKETS, outcomeTotal, type CallOutcome, type UsageBatchBody } from '@cp/node-protocol';

/** What one batch adds to one capability × tenant × hour of health (ADR 0310). */
export interface HealthIncrement {
  capabilityId: string;
  tenantId: string;
  /** The UTC hour, ISO (…:00:00.000Z). */
  hour: string;
  calls: number;
  outcomes: Record<CallOutcome, number>;
  latencyMs: number[];
}

const zeroOutcomes = (): Record<CallOutcome, number> => Object.fromEntries(CALL_OUTCOMES.map((o) => [o, 0])) as Record<CallOutcome, number>;

/**
 * Health lands in UTC hours by the entry's lastCallAt (validated inside the window): the hour of
 * its latest call, or of its latest outcome when no call was counted in the window. An older
 * node's entries (no outcomes) still add their calls, so calls stand beside the figures.
 */
export function aggregateHealth(batch: UsageBatchBody): HealthIncrement[] {
  const byKey = new Map<string, HealthIncrement>();
  for (const c of batch.counts) {
    if (c.count === 0 && outcomeTotal(c.outcomes) === 0) continue;
    const at = new Date(c.lastCallAt);
    at.setUTCMinutes(0, 0, 0);
    const hour = at.toISOString();
    const key = `${c.capabilityId}\u0000${c.tenant}\u0000${hour}`;
    let inc = byKey.get(key);
    if (!inc) {
      inc = {
        capabilityId: c.capabilityId,
        tenantId: c.tenant,
        hour,
        calls: 0,
        outcomes: zeroOutcomes(),
        latencyMs: new Array<number>(LATENCY_BUCKETS).fill(0),
      };
      byKey.set(key, inc);
    }
    inc.calls += c.count;
    for (const o of CALL_OUTCOMES) inc.outcomes[o] += c.outcomes?.[o] ?? 0;
    c.latencyMs?.forEach((n, i) => (inc.latencyMs[i] += n));
  }
  return [...byKey.values()];
}
