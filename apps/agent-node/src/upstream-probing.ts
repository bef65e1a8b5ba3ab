/**
 * Gateway servability (ADR 0275): the node fetches the own card of every upstream its bundle names
 * after each applied revision and every UPSTREAM_PROBE_INTERVAL_MS, and NodeSync reports what it
 * saw at register and with every heartbeat (at once when it changed).
 */
import type { AppConfig } from '@cp/common';
import { UpstreamProbe, type A2ALog, type NodeSync } from '@cp/node-sdk';

export function startUpstreamProbing(sync: NodeSync, config: AppConfig, log: A2ALog): UpstreamProbe {
  const probe = new UpstreamProbe({
    bundle: () => sync.current(),
    intervalMs: config.UPSTREAM_PROBE_INTERVAL_MS,
    timeoutMs: config.UPSTREAM_PROBE_TIMEOUT_MS,
    maxCardBytes: config.UPSTREAM_CARD_MAX_BYTES,
    onChange: () => void sync.upstreamsChanged(),
    log,
  });
  sync.useUpstreams(() => probe.report());
  sync.onApplied(() => void probe.probe());
  probe.start();
  return probe;
}
