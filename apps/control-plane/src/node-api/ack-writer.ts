import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { isForeignKeyViolation, nodeKey, NodeRepository, type AppliedAck, type NodeWriteResult } from './node.repository';

interface Pending extends AppliedAck {
  done: (result: NodeWriteResult) => void;
  failed: (error: unknown) => void;
}

/** Rows gathered before a flush starts; a flush in progress gathers the next batch meanwhile. */
const WINDOW_MS = 5;
const MAX_ROWS = 1000;

/**
 * Group commit of acks (ADR 0191): a fleet acks a revision within the same few milliseconds, and
 * one upsert per node made a change cost N PostgreSQL writes on the control plane's request path.
 * Acks are gathered for a few milliseconds (and while the previous batch is being written), then
 * written in one statement (NodeRepository.writeApplied: the Node rows and the inventories'
 * unservable lists, committed together). Every request still answers only after its own row is
 * committed, so a 204 means what it meant before: a crash loses no acknowledged ack.
 */
@Injectable()
export class AckWriter implements OnApplicationShutdown {
  private pending: Pending[] = [];
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;
  /** Batches and rows written (tests and benchmarks). */
  readonly stats = { batches: 0, rows: 0 };

  constructor(private readonly nodes: NodeRepository) {}

  write(ack: AppliedAck): Promise<NodeWriteResult> {
    return new Promise((done, failed) => {
      this.pending.push({ ...ack, done, failed });
      if (this.pending.length >= MAX_ROWS) this.kick(0);
      else this.kick(WINDOW_MS);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    while (this.pending.length > 0 || this.writing) {
      clearTimeout(this.timer);
      this.timer = undefined;
      await (this.writing ?? this.flush());
    }
  }

  private kick(delayMs: number): void {
    if (this.writing) return; // the running flush takes the next batch when it ends
    if (this.timer && delayMs > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
  }

  private flush(): Promise<void> {
    const batch = this.pending.splice(0, MAX_ROWS);
    if (batch.length === 0) return Promise.resolve();
    this.writing = this.writeBatch(batch).finally(() => {
      this.writing = undefined;
      if (this.pending.length > 0) this.kick(0);
    });
    return this.writing;
  }

  private async writeBatch(batch: Pending[]): Promise<void> {
    // One row per node in a statement (ON CONFLICT cannot touch a row twice): the last ack wins,
    // as it did when each was its own upsert; every request of that node gets the row's result.
    const rows = new Map<string, Pending>();
    for (const ack of batch) rows.set(nodeKey(ack.agentId, ack.nodeId), ack);
    // Sorted, so two processes' batches lock rows in the same order and cannot deadlock.
    const latest = [...rows.values()].sort((a, b) => cmp(a.agentId, b.agentId) || cmp(a.nodeId, b.nodeId));
    let written: Set<string>;
    try {
      written = await this.nodes.writeApplied(latest);
    } catch (error) {
      if (!isForeignKeyViolation(error)) {
        for (const ack of batch) ack.failed(error);
        return;
      }
      // An agent deleted under its nodes fails the whole statement: each row on its own tells which.
      await Promise.all(batch.map((ack) => this.writeOne(ack)));
      return;
    }
    this.stats.batches++;
    this.stats.rows += latest.length;
    for (const ack of batch) ack.done(written.has(nodeKey(ack.agentId, ack.nodeId)) ? 'ok' : 'agent-not-found');
  }

  private async writeOne(ack: Pending): Promise<void> {
    try {
      const written = await this.nodes.writeApplied([ack]);
      ack.done(written.has(nodeKey(ack.agentId, ack.nodeId)) ? 'ok' : 'agent-not-found');
    } catch (error) {
      if (isForeignKeyViolation(error)) ack.done('agent-not-found');
      else ack.failed(error);
    }
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
