/**
 * Counts routed calls per (capability, tenant) since the last drain, and how the calls that ended
 * meanwhile ended and how long their handlers ran (ADR 0310). O(1) per call and allocation-free
 * once a (capability, tenant) has its cell in the window: nested maps (no key string built per
 * call), outcome counts and latency buckets in fixed arrays allocated with the cell.
 */
import { CALL_OUTCOMES, LATENCY_BOUNDS_MS, LATENCY_BUCKETS, type CallOutcome } from '@cp/node-protocol';

export interface UsageCount {
  capabilityId: string;
  tenant: string;
  count: number;
  /** ISO time of the last call in the window (of the last outcome when no call was counted in it). */
  lastCallAt: string;
  /** How the calls that ended in this window ended (absent when none did: an older node's shape). */
  outcomes?: Partial<Record<CallOutcome, number>>;
  /** Handler durations of those calls per bucket of LATENCY_BOUNDS_MS (then one above), not cumulative. */
  latencyMs?: number[];
}

const OUTCOME_INDEX: Readonly<Record<CallOutcome, number>> = Object.freeze(
  Object.fromEntries(CALL_OUTCOMES.map((o, i) => [o, i])) as Record<CallOutcome, number>,
);
const REFUSED = OUTCOME_INDEX.refused;

interface Cell {
  capabilityId: string;
  tenant: string;
  count: number;
  last: number;
  ended: number;
  outcomes: number[];
  latency: number[];
}

/** The bucket of a duration: the first bound it does not exceed, else the one above the last. */
export function latencyBucket(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]) return i;
  return LATENCY_BOUNDS_MS.length;
}

export class UsageCounter {
  private cells = new Map<string, Map<string, Cell>>();

  record(capabilityId: string, tenant: string, at = Date.now()): void {
    const c = this.cell(capabilityId, tenant, at);
    c.count++;
    if (at > c.last) c.last = at;
  }

  /** A call ended (or a limit refused it); `ms` is its handler's duration (ignored for `refused`). */
  outcome(capabilityId: string, tenant: string, outcome: CallOutcome, ms: number, at = Date.now()): void {
    const c = this.cell(capabilityId, tenant, at);
    const index = OUTCOME_INDEX[outcome];
    c.outcomes[index]++;
    c.ended++;
    if (index !== REFUSED) c.latency[latencyBucket(ms)]++;
    if (c.count === 0 && at > c.last) c.last = at;
  }

  private cell(capabilityId: string, tenant: string, at: number): Cell {
    let byTenant = this.cells.get(capabilityId);
    if (!byTenant) {
      byTenant = new Map();
      this.cells.set(capabilityId, byTenant);
    }
    let c = byTenant.get(tenant);
    if (!c) {
      c = {
        capabilityId,
        tenant,
        count: 0,
        last: at,
        ended: 0,
        outcomes: new Array<number>(CALL_OUTCOMES.length).fill(0),
        latency: new Array<number>(LATENCY_BUCKETS).fill(0),
      };
      byTenant.set(tenant, c);
    }
    return c;
  }

  /** Everything counted so far, ordered by (capability, tenant), and a fresh window. */
  drain(): UsageCount[] {
    const taken = this.cells;
    this.cells = new Map();
    const out: UsageCount[] = [];
    for (const capabilityId of [...taken.keys()].sort()) {
      const byTenant = taken.get(capabilityId)!;
      for (const tenant of [...byTenant.keys()].sort()) {
        const c = byTenant.get(tenant)!;
        const entry: UsageCount = { capabilityId, tenant, count: c.count, lastCallAt: new Date(c.last).toISOString() };
        if (c.ended > 0) {
          entry.outcomes = Object.fromEntries(CALL_OUTCOMES.map((o, i) => [o, c.outcomes[i]]));
          entry.latencyMs = c.latency;
        }
        out.push(entry);
      }
    }
    return out;
  }
}
