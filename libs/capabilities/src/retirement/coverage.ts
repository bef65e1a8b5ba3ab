/**
 * Usage coverage: up to which time a node's usage is KNOWN. A node reports a batch for every
 * window, empty or not, so the windows it reported form a span; calls outside that span are
 * unknown, and unknown usage is not zero usage. Pure: no clock, no I/O.
 */

/** The contiguous span a node has reported, and whether it said it stopped serving at its end. */
export interface UsageCoverage {
  coveredFrom: Date;
  coveredUntil: Date;
  /** The last batch was final (graceful shutdown): the node served nothing after coveredUntil. */
  closed: boolean;
}

export interface ReportedWindow {
  windowStart: Date;
  windowEnd: Date;
  final: boolean;
}

/**
 * The coverage after a node reported `window`. Windows that touch or overlap the span extend
 * it; a window after a gap restarts it (the gap is unknown), unless the node had closed its
 * span (it was down, serving nothing, during the gap); a stale window entirely before the span
 * changes nothing (its counts still land in their buckets).
 */
export function mergeCoverage(existing: UsageCoverage | null, window: ReportedWindow): UsageCoverage {
  const { windowStart: start, windowEnd: end, final } = window;
  if (!existing) return { coveredFrom: start, coveredUntil: end, closed: final };
  const { coveredFrom: from, coveredUntil: until } = existing;
  if (start.getTime() > until.getTime()) {
    return existing.closed
      ? { coveredFrom: from, coveredUntil: end, closed: final }
      : { coveredFrom: start, coveredUntil: end, closed: final };
  }
  if (end.getTime() < from.getTime()) return existing;
  const extendsEnd = end.getTime() >= until.getTime();
  return {
    coveredFrom: start.getTime() < from.getTime() ? start : from,
    coveredUntil: extendsEnd ? end : until,
    closed: extendsEnd ? final : existing.closed,
  };
}

/** A node of the agent, as the retirement rule needs to see it. */
export interface NodeUsageState {
  nodeId: string;
  registeredAt: Date;
  lastSeenAt: Date;
  coverage: UsageCoverage | null;
  /** The node has usage buckets inside the window (it certainly served the agent then). */
  usedInWindow: boolean;
}

/** A stretch of time in which a node's usage is not known. */
export interface UnknownUsage {
  nodeId: string;
  from: Date;
  until: Date;
}

/** Whether the node served the agent at some point in [since, now]. */
export function servedInWindow(node: NodeUsageState, since: Date): boolean {
  if (node.usedInWindow) return true;
  if (node.coverage?.closed && node.coverage.coveredUntil.getTime() < since.getTime()) return false;
  const latest = Math.max(node.lastSeenAt.getTime(), node.registeredAt.getTime(), node.coverage?.coveredUntil.getTime() ?? 0);
  return latest >= since.getTime();
}

/**
 * The part of [since, now - grace] in which this node served (it may have) but its usage is not
 * known, or null when it is fully known. `grace` is how far behind now a node's report may be
 * (its flush interval plus transit): calls in the last `grace` are the one accepted blind spot.
 */
export function unknownUsage(node: NodeUsageState, since: Date, now: Date, graceMs: number): UnknownUsage | null {
  if (!servedInWindow(node, since)) return null;
  const start = new Date(Math.max(since.getTime(), Math.min(node.registeredAt.getTime(), now.getTime())));
  const end = new Date(now.getTime() - graceMs);
  const coverage = node.coverage;
  if (!coverage) return { nodeId: node.nodeId, from: start, until: now };
  if (coverage.coveredFrom.getTime() > start.getTime() + graceMs) return { nodeId: node.nodeId, from: start, until: coverage.coveredFrom };
  if (!coverage.closed && coverage.coveredUntil.getTime() < end.getTime())
    return { nodeId: node.nodeId, from: coverage.coveredUntil, until: now };
  return null;
}
