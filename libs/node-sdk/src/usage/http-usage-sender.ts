/** Sends a usage batch to the control plane's POST /node/v1/usage with the node's JWT. */
import { nodeApiPaths } from '@cp/node-protocol';
import type { SendOutcome, UsageBatch, UsageSender } from './usage-reporter';

export const USAGE_PATH = nodeApiPaths.usage;

export class HttpUsageSender implements UsageSender {
  constructor(
    private readonly controlPlaneUrl: string,
    private readonly nodeToken: () => string,
    private readonly timeoutMs = 5000,
  ) {}

  async send(batch: UsageBatch): Promise<SendOutcome> {
    const res = await fetch(new URL(USAGE_PATH, this.controlPlaneUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${this.nodeToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify(batch),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status === 200 || res.status === 202) return 'accepted';
    // Malformed for good: retrying the same bytes cannot succeed.
    if (res.status === 400 || res.status === 404 || res.status === 409 || res.status === 422) return 'rejected';
    return 'retry';
  }
}
