import { Injectable, Module } from '@nestjs/common';
import { currentTraceId } from '@cp/common';
import type { Prisma } from '../../../../prisma/generated/client';

/** What changed, before and after, as the audit log keeps it. */
export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string;
  before?: unknown;
  after?: unknown;
  /** Who the actor acted for (a delegated call), and the chain of that delegation. */
  onBehalfOf?: string;
  delegation?: DelegationChain;
}

/** Caller principal → agent (node) → capability → tool, with the scopes actually granted. */
export interface DelegationChain {
  principal: string;
  tenant: string;
  agentId: string;
  /** The subject of the node credential that asked (node tokens name an agent, not one node). */
  node: string;
  capabilityId: string;
  tool: string;
  scopes: string[];
}

/** Anything that can write audit events: a transaction, or the client itself. */
export type AuditDb = Pick<Prisma.TransactionClient, 'auditEvent'>;

/** The one INSERT of audit events; `registry` names the agent revision the entries belong to, if any. */
export async function writeAudit(
  db: AuditDb,
  actor: string,
  registry: { agentId: string; revision: number | null } | null,
  entries: AuditEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  // The trace of the request that made the change: the audit row and the spans find each other.
  const traceId = currentTraceId();
  await db.auditEvent.createMany({
    data: entries.map((entry) => ({
      actor,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      agentId: registry?.agentId ?? null,
      revision: registry?.revision ?? null,
      before: entry.before ?? undefined,
      after: entry.after ?? undefined,
      traceId,
      onBehalfOf: entry.onBehalfOf ?? null,
      delegation: entry.delegation ? { ...entry.delegation } : undefined,
    })),
  });
}

/**
 * Audit for registry-wide objects (teams, tenants, scopes): no agent, no revision, written in the
 * caller's transaction so the change and its audit event commit together. Changes to an agent's
 * registry are audited by RegistryWriter.change, with the revision they made.
 */
@Injectable()
export class AuditWriter {
  record(tx: AuditDb, actor: string, entries: AuditEntry[]): Promise<void> {
    return writeAudit(tx, actor, null, entries);
  }
}

@Module({ providers: [AuditWriter], exports: [AuditWriter] })
export class AuditWriterModule {}
