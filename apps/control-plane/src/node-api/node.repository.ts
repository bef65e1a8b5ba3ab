import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@cp/db';

export type NodeWrite = { kind: 'register'; hostname?: string } | { kind: 'heartbeat' } | { kind: 'refused'; error: string };

export type NodeWriteResult = 'ok' | 'agent-not-found';

/** One node's ack of a bundle it now serves. */
export interface AppliedAck {
  agentId: string;
  nodeId: string;
  revision: number;
  servedHash: string;
  /** Present: the node's report of what it cannot serve at this revision ([] clears it). */
  unservable?: string[];
}

/** `${agentId}\u0000${nodeId}`: a node's key in the set writeApplied returns. */
export const nodeKey = (agentId: string, nodeId: string) => `${agentId}\u0000${nodeId}`;

/**
 * Node rows, keyed (agentId, id): a node id names a node of the token's agent only, so another
 * agent using the same id writes its own row and never touches this one (ADR 0070).
 */
@Injectable()
export class NodeRepository {
  constructor(private readonly prisma: PrismaService) {}

  publishedAt(agentId: string, revision: number): Promise<RevisionPublication | null> {
    return revisionPublishedAt(this.prisma, agentId, revision);
  }

  async write(agentId: string, nodeId: string, change: NodeWrite): Promise<NodeWriteResult> {
    // Timestamps in UTC like Prisma writes them (the columns are TIMESTAMP(3) without zone).
    const now = Prisma.sql`(now() AT TIME ZONE 'UTC')`;
    const hostname = change.kind === 'register' ? (change.hostname ?? null) : null;
    const error = change.kind === 'refused' ? change.error : null;
    const onConflict =
      change.kind === 'refused'
        ? Prisma.sql`"lastError" = EXCLUDED."lastError", "lastErrorAt" = EXCLUDED."lastErrorAt",`
        : change.kind === 'register'
          ? Prisma.sql`hostname = COALESCE(EXCLUDED.hostname, "Node".hostname),`
          : Prisma.empty;
    try {
      const rows = await this.prisma.$queryRaw<{ id: string }[]>`
        INSERT INTO "Node" (id, "agentId", hostname, "registeredAt", "lastSeenAt", "appliedRevision", "servedHash", "lastError", "lastErrorAt")
        VALUES (${nodeId}, ${agentId}, ${hostname}, ${now}, ${now}, NULL, NULL, ${error}, CASE WHEN ${error}::text IS NULL THEN NULL ELSE ${now} END)
        ON CONFLICT ("agentId", id) DO UPDATE SET ${onConflict} "lastSeenAt" = EXCLUDED."lastSeenAt"
        RETURNING id`;
      return rows.length === 1 ? 'ok' : 'agent-not-found';
    } catch (e) {
      if (isForeignKeyViolation(e)) return 'agent-not-found';
      throw e;
    }
  }

  /**
   * Acks, at most one per node (ON CONFLICT cannot touch a row twice): each node's row upserted
   * with the revision and hash it serves (its last error cleared), and, for the nodes whose row
   * that wrote and that reported one, its inventory's unservable list. One statement, so both
   * commit together or not at all. Returns the keys (nodeKey) of the rows written. An agent
   * deleted under one of its nodes fails the whole statement (a foreign-key violation, thrown).
   */
  async writeApplied(rows: readonly AppliedAck[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const now = Prisma.sql`(now() AT TIME ZONE 'UTC')`;
    // text[] of different lengths cannot be unnested side by side: each list travels as JSON (NULL: none reported).
    const written = await this.prisma.$queryRaw<{ agentId: string; id: string }[]>`
      WITH r AS (
        SELECT * FROM unnest(${rows.map((r) => r.nodeId)}::text[], ${rows.map((r) => r.agentId)}::text[],
                             ${rows.map((r) => r.revision)}::int[], ${rows.map((r) => r.servedHash)}::text[],
                             ${rows.map((r) => (r.unservable ? JSON.stringify(r.unservable) : null))}::jsonb[])
          AS r(id, agent, revision, hash, list)
      ), up AS (
        INSERT INTO "Node" (id, "agentId", hostname, "registeredAt", "lastSeenAt", "appliedRevision", "servedHash", "lastError", "lastErrorAt")
        SELECT r.id, r.agent, NULL, ${now}, ${now}, r.revision, r.hash, NULL, NULL FROM r
        ON CONFLICT ("agentId", id) DO UPDATE SET "appliedRevision" = EXCLUDED."appliedRevision", "servedHash" = EXCLUDED."servedHash",
          "lastError" = NULL, "lastErrorAt" = NULL, "lastSeenAt" = EXCLUDED."lastSeenAt"
        RETURNING "agentId", id
      ), inventory AS (
        -- Only for rows the upsert wrote: that proved each node id is its token's agent's.
        UPDATE "NodeInventory" AS i
        SET unservable = ARRAY(SELECT jsonb_array_elements_text(r.list)), "unservableRevision" = r.revision
        FROM r JOIN up ON up."agentId" = r.agent AND up.id = r.id
        WHERE r.list IS NOT NULL AND i."agentId" = r.agent AND i."nodeId" = r.id
      )
      SELECT "agentId", id FROM up`;
    return new Set(written.map((w) => nodeKey(w.agentId, w.id)));
  }
}

export interface RevisionPublication {
  at: Date;
  /** The outbox row's publishedAt, which never changes once set; false: its creation, until then. */
  final: boolean;
}

/** When a revision was announced to the nodes (the outbox row's publishedAt; its creation before that). */
export async function revisionPublishedAt(prisma: PrismaService, agentId: string, revision: number): Promise<RevisionPublication | null> {
  const row = await prisma.registryRevision.findUnique({
    where: { agentId_revision: { agentId, revision } },
    select: { createdAt: true, publishedAt: true },
  });
  if (!row) return null;
  return row.publishedAt ? { at: row.publishedAt, final: true } : { at: row.createdAt, final: false };
}

export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as {
    code?: string;
    meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string } } };
    message?: string;
  };
  return (
    e.code === 'P2003' ||
    e.meta?.code === '23503' ||
    e.meta?.driverAdapterError?.cause?.originalCode === '23503' ||
    /foreign key/i.test(e.message ?? '')
  );
}
