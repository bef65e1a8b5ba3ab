/**
 * A latency quantile from bucket counts (ADR 0310), interpolated as Prometheus's
 * histogram_quantile does, so the control plane's figures and the alert rules agree:
 * the rank q·total falls in one bucket, and the value is placed linearly inside it, between the
 * bucket's lower bound (the previous bound, 0 for the first) and its upper bound. A rank in the
 * bucket above the last bound answers the last bound (a floor: "at least that slow").
 *
 * `buckets` are per-bucket counts (not cumulative), one per bound and one above the last.
 * Undefined when nothing was counted.
 */
export function latencyQuantile(buckets: readonly number[], bounds: readonly number[], q: number): number | undefined {
  if (buckets.length !== bounds.length + 1) throw new RangeError(`expected ${bounds.length + 1} buckets, got ${buckets.length}`);
  if (!(q >= 0 && q <= 1)) throw new RangeError(`the quantile must be in [0, 1], got ${q}`);
  const total = buckets.reduce((sum, n) => sum + n, 0);
  if (total <= 0) return undefined;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < bounds.length; i++) {
    const count = buckets[i];
    if (count > 0 && below + count >= rank) {
      const lower = i === 0 ? 0 : bounds[i - 1];
      return lower + (bounds[i] - lower) * ((rank - below) / count);
    }
    below += count;
  }
  return bounds[bounds.length - 1];
}
