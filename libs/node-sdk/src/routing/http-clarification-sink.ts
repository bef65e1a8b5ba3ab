/**
 * Sends resolved clarifications to the control plane's POST /node/v1/clarifications with the
 * node's token (ADR 0094). Clarifications are rare and a learning signal, not a bill: choices are
 * buffered (bounded), sent in small batches as soon as the previous send ends, and dropped with a
 * warning when the control plane refuses or cannot be reached. Never on the request path.
 */
import { MAX_CLARIFICATION_TEXT, MAX_CLARIFICATIONS_PER_REPORT, nodeApiPaths } from '@cp/node-protocol';
import type { ClarificationChoice, ClarificationSink } from '../a2a/a2a-service';

export const CLARIFICATIONS_PATH = nodeApiPaths.clarifications;
const MAX_BATCH = MAX_CLARIFICATIONS_PER_REPORT;

export class HttpClarificationSink implements ClarificationSink {
  private buffer: ClarificationChoice[] = [];
  private sending: Promise<void> | undefined;

  constructor(
    private readonly controlPlaneUrl: string,
    private readonly nodeToken: () => string,
    private readonly log: { warn(fields: Record<string, unknown>, message: string): void },
    private readonly options: { timeoutMs?: number; maxBuffered?: number } = {},
  ) {}

  record(choice: ClarificationChoice): void {
    if (this.buffer.length >= (this.options.maxBuffered ?? 1000)) this.buffer.shift();
    // NUL is refused by the control plane (it cannot store it): removed here, so one message does not drop its batch.
    this.buffer.push({ ...choice, text: choice.text.replaceAll('\u0000', '').slice(0, MAX_CLARIFICATION_TEXT) });
    this.sending ??= this.drain().finally(() => (this.sending = undefined));
  }

  /** Resolves when everything recorded so far was sent (or dropped). */
  async flush(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, MAX_BATCH);
      try {
        const res = await fetch(new URL(CLARIFICATIONS_PATH, this.controlPlaneUrl), {
          method: 'POST',
          headers: { authorization: `Bearer ${this.nodeToken()}`, 'content-type': 'application/json' },
          body: JSON.stringify({ choices: batch }),
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
        });
        await res.arrayBuffer().catch(() => undefined);
        if (res.status !== 202) this.log.warn({ status: res.status, dropped: batch.length }, 'clarifications refused by the control plane');
      } catch (error) {
        this.log.warn({ err: (error as Error).message, dropped: batch.length }, 'clarifications not sent');
      }
    }
  }
}
