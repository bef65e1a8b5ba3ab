/**
 * Batched usage reporting with idempotency keys: nothing lost on retry, nothing counted twice.
 *
 * - Every `flushIntervalMs` the current window closes into a batch with a fresh batchId (uuid),
 *   even when empty (the control plane then knows usage for that window is KNOWN to be zero).
 *   Windows are contiguous: each starts where the previous ended.
 * - Batches are queued in order and sent oldest first; a batch is removed only once the control
 *   plane accepted it (202, duplicate or not). A failed send keeps it, with the SAME batchId, for
 *   the next tick, so a retry after a lost response is recognised as a duplicate.
 * - The queue is spooled to disk (temp file + rename) whenever it changes, and reloaded at start:
 *   closed-but-unsent batches survive a restart. Calls counted in the still-open window are lost
 *   only on a crash (stop() closes and spools the window, marked `final`: the node serves
 *   nothing until it reports again, so its silence meanwhile is not unknown usage).
 * - A batch the control plane refuses as malformed (400/404/422) can never succeed: it is moved
 *   to `<spool>.rejected.jsonl` and logged, instead of blocking the queue forever.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CallOutcome } from '@cp/node-protocol';
import type { UsageObserver } from '../observability/observer';
import { UsageCounter, type UsageCount } from './usage-counter';

export interface UsageBatch {
  nodeId: string;
  batchId: string;
  windowStart: string;
  windowEnd: string;
  counts: UsageCount[];
  /** The node stops serving at windowEnd (graceful shutdown): the retirement rule may treat the
   *  time until it reports again as known-zero instead of unknown. */
  final?: boolean;
}

export type SendOutcome = 'accepted' | 'retry' | 'rejected';

export interface UsageSender {
  send(batch: UsageBatch): Promise<SendOutcome>;
}

export interface UsageLog {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface UsageReporterOptions {
  nodeId: string;
  sender: UsageSender;
  flushIntervalMs: number;
  /** File for unsent batches; omit to keep them in memory only. */
  spoolFile?: string;
  log: UsageLog;
  now?: () => number;
  /** Batches spooled, sent and refused (metrics). */
  observer?: UsageObserver;
}

export class UsageReporter {
  readonly counter = new UsageCounter();
  private pending: UsageBatch[] = [];
  private windowStart: number;
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private readonly now: () => number;

  constructor(private readonly options: UsageReporterOptions) {
    this.now = options.now ?? Date.now;
    this.windowStart = this.now();
  }

  record(capabilityId: string, tenant: string): void {
    this.counter.record(capabilityId, tenant, this.now());
  }

  /** How a call ended and its handler's duration: sent with the same batches (ADR 0310). */
  outcome(capabilityId: string, tenant: string, outcome: CallOutcome, seconds: number): void {
    this.counter.outcome(capabilityId, tenant, outcome, seconds * 1000, this.now());
  }

  /** Unsent batches, oldest first (read-only view, for tests and /readyz details). */
  get queued(): readonly UsageBatch[] {
    return this.pending;
  }

  async start(): Promise<void> {
    if (this.options.spoolFile) {
      const spooled = await readFile(this.options.spoolFile, 'utf8').catch(() => undefined);
      if (spooled) {
        try {
          this.pending = (JSON.parse(spooled) as UsageBatch[]).filter((b) => typeof b.batchId === 'string');
        } catch {
          this.options.log.error({ file: this.options.spoolFile }, 'usage spool is unreadable; starting with an empty queue');
        }
      }
    }
    this.timer = setInterval(() => void this.flush(), this.options.flushIntervalMs);
    this.timer.unref();
  }

  /** Closes the current window into a batch and sends everything queued (one flush at a time). */
  flush(final = false): Promise<void> {
    if (!this.flushing) {
      this.flushing = this.doFlush(final).finally(() => {
        this.flushing = undefined;
      });
    }
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush(true);
  }

  private async doFlush(final: boolean): Promise<void> {
    const end = this.now();
    this.pending.push({
      nodeId: this.options.nodeId,
      batchId: randomUUID(),
      windowStart: new Date(this.windowStart).toISOString(),
      windowEnd: new Date(end).toISOString(),
      counts: this.counter.drain(),
      ...(final ? { final: true } : {}),
    });
    this.windowStart = end;
    this.options.observer?.batch('spooled');
    await this.spool();
    while (this.pending.length > 0) {
      const batch = this.pending[0];
      let outcome: SendOutcome;
      try {
        outcome = await this.options.sender.send(batch);
      } catch (error) {
        this.options.log.warn({ batchId: batch.batchId, err: (error as Error).message }, 'usage batch not delivered; will retry');
        outcome = 'retry';
      }
      if (outcome === 'retry') break;
      this.pending.shift();
      this.options.observer?.batch(outcome === 'rejected' ? 'refused' : 'sent');
      if (outcome === 'rejected') await this.reject(batch);
      await this.spool();
    }
  }

  private async reject(batch: UsageBatch): Promise<void> {
    this.options.log.error({ batchId: batch.batchId, counts: batch.counts.length }, 'usage batch refused by the control plane; set aside');
    if (this.options.spoolFile)
      await appendFile(`${this.options.spoolFile}.rejected.jsonl`, `${JSON.stringify(batch)}\n`).catch(() => undefined);
  }

  private async spool(): Promise<void> {
    const file = this.options.spoolFile;
    if (!file) return;
    try {
      await mkdir(dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(this.pending));
      await rename(tmp, file);
    } catch (error) {
      this.options.log.warn({ file, err: (error as Error).message }, 'usage spool not written');
    }
  }
}
