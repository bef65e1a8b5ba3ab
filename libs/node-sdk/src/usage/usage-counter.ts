/** Counts routed calls per (capability, tenant) since the last drain. O(1) per call. */
export interface UsageCount {
  capabilityId: string;
  tenant: string;
  count: number;
  /** ISO time of the last call in the window. */
  lastCallAt: string;
}

export class UsageCounter {
  private counts = new Map<string, { capabilityId: string; tenant: string; count: number; last: number }>();

  record(capabilityId: string, tenant: string, at = Date.now()): void {
    const key = `${capabilityId}\u0000${tenant}`;
    const c = this.counts.get(key);
    if (c) {
      c.count++;
      if (at > c.last) c.last = at;
    } else {
      this.counts.set(key, { capabilityId, tenant, count: 1, last: at });
    }
  }

  /** Everything counted so far, ordered, and a fresh window. */
  drain(): UsageCount[] {
    const taken = this.counts;
    this.counts = new Map();
    return [...taken.values()]
      .map((c) => ({ capabilityId: c.capabilityId, tenant: c.tenant, count: c.count, lastCallAt: new Date(c.last).toISOString() }))
      .sort((a, b) => (a.capabilityId + '\u0000' + a.tenant < b.capabilityId + '\u0000' + b.tenant ? -1 : 1));
  }
}
