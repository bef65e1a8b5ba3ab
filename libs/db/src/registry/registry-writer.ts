import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { inSpan, MetricsRegistryToken, serverCounter } from '@cp/common';
import type { RegistrySnapshot } from '@cp/capabilities';
import type { Prisma } from '../../../../prisma/generated/client';
import { writeAudit, type AuditEntry } from '../audit/audit-writer';
import { PrismaService } from '../prisma.service';
import { RegistryError, RegistryErrorCode } from './registry.errors';
import { readRegistrySnapshot } from './registry-snapshot.repository';
import { REVISION_LISTENERS, type RevisionListener } from './revision-listener';

export type RegistryTx = Prisma.TransactionClient;

export interface RegistryChange {
  agentId: string;
  /** When given, the change is refused (and nothing written) unless the agent is at this revision. */
  expectedRevision?: number;
  actor: string;
  summary: string;
  /**
   * Judged inside the transaction, after the work, on the new revision's snapshot as the
   * transaction sees it (ADR 0365): throwing refuses the change and rolls everything back. It
   * replaces a check of its own snapshot transaction before the write.
   */
  check?: (snapshot: RegistrySnapshot) => void;
}

/**
 * The one way to change an agent's registry: in ONE transaction it bumps the agent's revision
 * (locking the agent row, so changes to one agent serialize), records the RegistryRevision row
 * (the invalidation outbox), runs the change and writes its audit events; after the commit it
 * tells the revision listeners. A stale expectedRevision writes nothing. When a listener prepares
 * (ADR 0365), the snapshot of the new revision is read in the same transaction, after the work,
 * and handed to it before the COMMIT, so the publisher reads nothing again after it.
 */
@Injectable()
export class RegistryWriter {
  private readonly logger = new Logger(RegistryWriter.name);

  constructor(
    private readonly prisma: PrismaService,
    @Optional() @Inject(REVISION_LISTENERS) private readonly listeners: RevisionListener[] = [],
    @Optional() @Inject(MetricsRegistryToken) private readonly metrics?: Registry,
  ) {}

  async change<T>(
    change: RegistryChange,
    work: (tx: RegistryTx, revision: number) => Promise<{ result: T; audit: AuditEntry[] }>,
  ): Promise<{ result: T; revision: number }> {
    const outcome = await inSpan('registry.write', { 'cp.agent.id': change.agentId }, async (span) => {
      const committed = await this.prisma.$transaction(async (tx) => {
        const revision = await bumpRevision(tx, change);
        await tx.registryRevision.create({
          data: { agentId: change.agentId, revision, actor: change.actor, summary: change.summary.slice(0, 500) },
        });
        const { result, audit } = await work(tx, revision);
        await writeAudit(tx, change.actor, { agentId: change.agentId, revision }, audit);
        const prepared = await this.prepare(tx, change);
        return { result, revision, actions: audit.map((a) => a.action), prepared };
      });
      span?.setAttribute('cp.revision', committed.revision);
      return committed;
    });
    if (this.metrics) {
      const changes = serverCounter(this.metrics, 'registryChanges');
      for (const action of outcome.actions.length > 0 ? outcome.actions : ['revision']) changes.labels(action).inc();
    }
    // After the write span: the publish is a sibling under the mutation (ADR 0142).
    await this.notify(change.agentId, outcome.revision, outcome.prepared);
    return { result: outcome.result, revision: outcome.revision };
  }

  /**
   * Inside the transaction: the new revision's snapshot (the agent row is locked by the bump, and
   * every change of the agent's registry goes through here, so nothing else changes it before the
   * COMMIT), judged by the change's check, then handed to each listener that prepares. Nothing is
   * read when there is neither.
   */
  private async prepare(tx: RegistryTx, change: RegistryChange): Promise<unknown[]> {
    const { agentId } = change;
    if (!change.check && !this.listeners.some((l) => l.prepare)) return [];
    const snapshot = await readRegistrySnapshot(tx, agentId);
    if (!snapshot) return [];
    change.check?.(snapshot);
    return this.listeners.map((listener) => {
      try {
        return listener.prepare?.(snapshot);
      } catch (error) {
        this.logger.warn(`revision listener could not prepare ${agentId}@${snapshot.revision}: ${(error as Error).message}`);
        return undefined;
      }
    });
  }

  private async notify(agentId: string, revision: number, prepared: unknown[]): Promise<void> {
    for (const [i, listener] of this.listeners.entries()) {
      try {
        await listener.revisionCommitted(agentId, revision, prepared[i]);
      } catch (error) {
        this.logger.warn(`revision listener failed for ${agentId}@${revision}: ${(error as Error).message}; the outbox will retry`);
      }
    }
  }
}

/**
 * How long a change waits for the agent row another transaction holds (another replica's change,
 * a migration, a stuck session). Below Prisma's 5 s interactive-transaction timeout: PostgreSQL
 * itself gives up the wait (a query blocked on a lock is not cancelled by Prisma's timeout, so
 * the request would hang for as long as the other holds the row), and the caller is told to retry.
 */
export const REGISTRY_LOCK_TIMEOUT_MS = 3000;

async function bumpRevision(tx: RegistryTx, change: RegistryChange): Promise<number> {
  const expected = change.expectedRevision ?? null;
  await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = ${REGISTRY_LOCK_TIMEOUT_MS}`);
  let rows: { revision: number }[];
  try {
    rows = await tx.$queryRaw<{ revision: number }[]>`
      UPDATE "Agent" SET revision = revision + 1, "updatedAt" = now()
       WHERE id = ${change.agentId} AND (${expected}::int IS NULL OR revision = ${expected}::int)
       RETURNING revision`;
  } catch (error) {
    if (!isLockTimeout(error)) throw error;
    throw new RegistryError(
      RegistryErrorCode.Busy,
      `agent "${change.agentId}" is held by another change for more than ${REGISTRY_LOCK_TIMEOUT_MS} ms; nothing was written: retry`,
      { agentId: change.agentId, lockTimeoutMs: REGISTRY_LOCK_TIMEOUT_MS },
    );
  }
  if (rows.length === 1) return rows[0].revision;
  const agent = await tx.agent.findUnique({ where: { id: change.agentId }, select: { revision: true } });
  if (!agent) throw new RegistryError(RegistryErrorCode.AgentNotFound, `agent "${change.agentId}" not found`, { agentId: change.agentId });
  throw new RegistryError(
    RegistryErrorCode.StaleRevision,
    `agent "${change.agentId}" is at revision ${agent.revision}, not ${expected}: reload and retry`,
    { agentId: change.agentId, expectedRevision: expected, currentRevision: agent.revision },
  );
}

/** PostgreSQL's lock_not_available (55P03, "canceling statement due to lock timeout"), however Prisma wraps it. */
function isLockTimeout(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const e = error as { code?: unknown; originalCode?: unknown; message?: unknown; meta?: unknown; cause?: unknown };
  if (e.code === '55P03' || e.originalCode === '55P03') return true;
  if (typeof e.message === 'string' && /\b55P03\b|lock timeout/.test(e.message)) return true;
  const adapter = (e.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  return isLockTimeout(adapter, depth + 1) || isLockTimeout(e.cause, depth + 1);
}
