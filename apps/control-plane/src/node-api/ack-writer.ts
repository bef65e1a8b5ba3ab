import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Prisma, PrismaService } from '@cp/db';
import { isForeignKeyViolation, NodeRepository, type NodeWriteResult } from './node.repository';

/** One node's ack of a bundle it now serves. */
export interface AppliedAck {
  agentId: string;
  nodeId: string;
  revision: number;
  servedHash: string;
  /** Present: the node's report of what it cannot serve at this revision ([] clears it). */
  unservable?: string[];
}

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
 * written in one multi-row upsert. Every request still answers only after its own row is
 * committed, so a 204 means what it meant before: a crash loses no acknowledged ack.
 */
@Injectable()
export class AckWriter implements OnApplicationShutdown {
  private pending: Pending[] = [];
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;
  /** Batches and rows written (tests and benchmarks). */
  readonly stats = { batches: 0, rows: 0 };

  constructor(
    private readonly prisma: PrismaService,
    private readonly nodes: NodeRepository,
  ) {}

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
    for (const ack of batch) rows.set(`${ack.agentId}\u0000${ack.nodeId}`, ack);
    // Sorted, so two processes' batches lock rows in the same order and cannot deadlock.
    const latest = [...rows.values()].sort((a, b) => cmp(a.agentId, b.agentId) || cmp(a.nodeId, b.nodeId));
    let written: Set<string>;
    try {
      written = await this.upsert(latest);
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
    for (const ack of batch) ack.done(written.has(`${ack.agentId}\u0000${ack.nodeId}`) ? 'ok' : 'agent-not-found');
  }

  private async writeOne(ack: Pending): Promise<void> {
    try {
      const result = await this.nodes.write(ack.agentId, ack.nodeId, {
        kind: 'applied',
        revision: ack.revision,
        servedHash: ack.servedHash,
      });
      if (result === 'ok' && ack.unservable) await this.updateUnservable([ack]);
      ack.done(result);
    } catch (error) {
      ack.failed(error);
    }
  }

  /** The Node rows (same columns as NodeRepository.write's 'applied'), then the inventories' unservable lists. */
  private async upsert(rows: AppliedAck[]): Promise<Set<string>> {
    const now = Prisma.sql`(now() AT TIME ZONE 'UTC')`;
    const written = await this.prisma.$queryRaw<{ agentId: string; id: string }[]>`
      INSERT INTO "Node" (id, "agentId", hostname, "registeredAt", "lastSeenAt", "appliedRevision", "servedHash", "lastError", "lastErrorAt")
      SELECT r.id, r.agent, NULL, ${now}, ${now}, r.revision, r.hash, NULL, NULL
      FROM unnest(${rows.map((r) => r.nodeId)}::text[], ${rows.map((r) => r.agentId)}::text[],
                  ${rows.map((r) => r.revision)}::int[], ${rows.map((r) => r.servedHash)}::text[]) AS r(id, agent, revision, hash)
      ON CONFLICT ("agentId", id) DO UPDATE SET "appliedRevision" = EXCLUDED."appliedRevision", "servedHash" = EXCLUDED."servedHash",
        "lastError" = NULL, "lastErrorAt" = NULL, "lastSeenAt" = EXCLUDED."lastSeenAt"
      RETURNING "agentId", id`;
    const keys = new Set(written.map((w) => `${w.agentId}\u0000${w.id}`));
    // Only after the upsert proved each node id is its token's agent's (as the single write did).
    await this.updateUnservable(rows.filter((r) => r.unservable && keys.has(`${r.agentId}\u0000${r.nodeId}`)));
    return keys;
  }

  private async updateUnservable(rows: AppliedAck[]): Promise<void> {
    if (rows.length === 0) return;
    // text[] of different lengths cannot be unnested side by side: each list travels as JSON.
    await this.prisma.$executeRaw`
      UPDATE "NodeInventory" AS i
      SET unservable = ARRAY(SELECT jsonb_array_elements_text(r.list)), "unservableRevision" = r.revision
      FROM unnest(${rows.map((r) => r.agentId)}::text[], ${rows.map((r) => r.nodeId)}::text[],
                  ${rows.map((r) => r.revision)}::int[], ${rows.map((r) => JSON.stringify(r.unservable))}::jsonb[]) AS r(agent, node, revision, list)
      WHERE i."agentId" = r.agent AND i."nodeId" = r.node`;
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
