import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@cp/db';

export type NodeWrite =
  | { kind: 'register'; hostname?: string }
  | { kind: 'heartbeat' }
  | { kind: 'applied'; revision: number; servedHash: string }
  | { kind: 'refused'; error: string };

export type NodeWriteResult = 'ok' | 'agent-not-found';

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
    const revision = change.kind === 'applied' ? change.revision : null;
    const servedHash = change.kind === 'applied' ? change.servedHash : null;
    const error = change.kind === 'refused' ? change.error : null;
    const onConflict =
      change.kind === 'applied'
        ? Prisma.sql`"appliedRevision" = EXCLUDED."appliedRevision", "servedHash" = EXCLUDED."servedHash", "lastError" = NULL, "lastErrorAt" = NULL,`
        : change.kind === 'refused'
          ? Prisma.sql`"lastError" = EXCLUDED."lastError", "lastErrorAt" = EXCLUDED."lastErrorAt",`
          : change.kind === 'register'
            ? Prisma.sql`hostname = COALESCE(EXCLUDED.hostname, "Node".hostname),`
            : Prisma.empty;
    try {
      const rows = await this.prisma.$queryRaw<{ id: string }[]>`
        INSERT INTO "Node" (id, "agentId", hostname, "registeredAt", "lastSeenAt", "appliedRevision", "servedHash", "lastError", "lastErrorAt")
        VALUES (${nodeId}, ${agentId}, ${hostname}, ${now}, ${now}, ${revision}::int, ${servedHash}, ${error}, CASE WHEN ${error}::text IS NULL THEN NULL ELSE ${now} END)
        ON CONFLICT ("agentId", id) DO UPDATE SET ${onConflict} "lastSeenAt" = EXCLUDED."lastSeenAt"
        RETURNING id`;
      return rows.length === 1 ? 'ok' : 'agent-not-found';
    } catch (e) {
      if (isForeignKeyViolation(e)) return 'agent-not-found';
      throw e;
    }
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
